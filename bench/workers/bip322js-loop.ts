// The BIP-322 baseline inside workerd: bip322-js `Verifier.verifySignature` run `n` times per request over the
// signatures of one address type. Bundled by wrangler with nodejs_compat (bip322js.wrangler.toml): bip322-js
// needs Node's buffer and crypto.
import { Verifier } from "bip322-js";

interface Env {
  /** [{kind, address, message, signature}] */
  SIGNATURES: string;
}
interface Signed {
  kind: string;
  address: string;
  message: string;
  signature: string;
}

export default {
  fetch(request: Request, env: Env): Response {
    const url = new URL(request.url);
    if (url.pathname !== "/verify") return new Response("not found", { status: 404 });
    const n = Number(url.searchParams.get("n") ?? "0");
    const kind = url.searchParams.get("kind");
    const items = (JSON.parse(env.SIGNATURES) as Signed[]).filter((s) => s.kind === kind);
    if (items.length === 0) return new Response("no signatures of that kind", { status: 400 });
    let ok = 0;
    for (let i = 0; i < n; i++) {
      const { address, message, signature } = items[i % items.length] as Signed;
      if (Verifier.verifySignature(address, message, signature)) ok += 1;
    }
    return Response.json({ n, ok });
  },
} satisfies ExportedHandler<Env>;
