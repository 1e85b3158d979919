// A sign-in on a running auth host (scripts/dev.mjs), as a wallet and a browser make it: a fresh key, the host's
// challenge, a BIP-322 signature by bip322-js (the independent reference signer, not the kit), the oc_session cookie.
import { Signer } from "bip322-js";
import { generateSigningWif } from "../../scripts/wif.mjs";

export interface StackSession {
  /** The oc_session cookie's value. */
  cookie: string;
  didOc: string;
  wif: string;
  address: string;
}

export async function signInWithBip322(authOrigin: string): Promise<StackSession> {
  const key = generateSigningWif(undefined, "p2wpkh");
  const query = new URLSearchParams({ addr: key.address, audience: authOrigin, purpose: "login" });
  const challenge = (await (await fetch(`${authOrigin}/api/challenge?${query}`)).json()) as {
    message: string;
    nonce: string;
  };
  const res = await fetch(`${authOrigin}/api/auth/signin`, {
    method: "POST",
    headers: { "content-type": "application/json", "sec-fetch-site": "same-origin" },
    body: JSON.stringify({
      address: key.address,
      message: challenge.message,
      signature: Signer.sign(key.wif, key.address, challenge.message),
      nonce: challenge.nonce,
    }),
  });
  const body = (await res.json()) as { account?: { did_oc: string } };
  const cookie = /^oc_session=([^;]+)/.exec(res.headers.get("set-cookie") ?? "")?.[1];
  if (res.status !== 200 || !cookie || !body.account) throw new Error(`sign-in failed: ${res.status}`);
  return { cookie, didOc: body.account.did_oc, wif: key.wif, address: key.address };
}
