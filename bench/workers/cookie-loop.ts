// Consumer cookie verification inside workerd, HTTP excluded: each request verifies the same session token `n`
// times in a loop, with the integrator kit's verifier (JWKS read once, then cached) or with bare WebCrypto
// Ed25519 `verify` of the token's signature (key imported and the token split once, outside the loop).
import { base64urlnopad } from "@scure/base";
import { createSessionVerifier } from "../../shared/kit/consumer/session-verifier";

interface Env {
  TOKEN: string;
  JWKS: string; // {"keys":[…]}
  ISSUER: string;
}

let verifier: ReturnType<typeof createSessionVerifier> | undefined;
let bare: { key: CryptoKey; data: Uint8Array; signature: Uint8Array } | undefined;

async function setup(env: Env) {
  verifier ??= createSessionVerifier({
    authOrigin: env.ISSUER,
    fetch: async () => new Response(env.JWKS, { headers: { "content-type": "application/json" } }),
  });
  if (!bare) {
    const jwk = (JSON.parse(env.JWKS) as { keys: JsonWebKey[] }).keys[0] as JsonWebKey;
    const [head, payload, sig] = env.TOKEN.split(".") as [string, string, string];
    bare = {
      key: await crypto.subtle.importKey("jwk", jwk, { name: "Ed25519" }, false, ["verify"]),
      data: new TextEncoder().encode(`${head}.${payload}`),
      signature: base64urlnopad.decode(sig),
    };
  }
  return { verifier, bare };
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    const n = Number(url.searchParams.get("n") ?? "0");
    const { verifier: kit, bare: raw } = await setup(env);
    let ok = 0;
    if (url.pathname === "/kit") {
      for (let i = 0; i < n; i++) if ((await kit.verify(env.TOKEN)).ok) ok += 1;
    } else if (url.pathname === "/webcrypto") {
      for (let i = 0; i < n; i++) if (await crypto.subtle.verify("Ed25519", raw.key, raw.signature, raw.data)) ok += 1;
    } else {
      return new Response("not found", { status: 404 });
    }
    return Response.json({ n, ok });
  },
} satisfies ExportedHandler<Env>;
