// BIP-322 verification inside workerd, HTTP excluded: each request runs the project's verifier `n` times over the
// signatures of one address type, on libsecp256k1 as WebAssembly (what the workers run) or on @noble/curves (the
// pure-JS reference), or one bare curve operation `n` times (the floors under the verifier).
import { hex } from "@scure/base";
import { verifyMessageSignature } from "../../shared/bitcoin/bip322";
import type { Secp256k1Backend } from "../../shared/bitcoin/curve";
import { nobleSecp256k1 } from "../../shared/bitcoin/curve-noble";
import { defaultSecp256k1 } from "../../shared/bitcoin/secp256k1-module";
import { forgetUncompressedKeys } from "../../shared/bitcoin/secp256k1-wasm";

interface Env {
  /** [{kind, address, message, signature}] */
  SIGNATURES: string;
  /** hex inputs of one ECDSA, one BIP-340 and one recoverable signature over DIGEST */
  FLOOR: string;
}
interface Signed {
  kind: string;
  address: string;
  message: string;
  signature: string;
}
type Floor = Record<"digest" | "ecdsa" | "ecdsaKey" | "schnorr" | "schnorrKey" | "recoverable", string>;

const curves: Record<string, () => Secp256k1Backend> = { wasm: defaultSecp256k1, noble: () => nobleSecp256k1 };

function floorOp(op: string, curve: Secp256k1Backend, hexes: Floor): (() => boolean) | undefined {
  const f = Object.fromEntries(Object.entries(hexes).map(([k, v]) => [k, hex.decode(v)])) as Record<
    keyof Floor,
    Uint8Array
  >;
  if (op === "ecdsa") return () => curve.verifyEcdsa(f.ecdsa, f.digest, f.ecdsaKey);
  if (op === "schnorr") return () => curve.verifySchnorr(f.schnorr, f.digest, f.schnorrKey);
  const [recovery = 0, ...rs] = f.recoverable;
  const sig = Uint8Array.from(rs);
  if (op === "recover") return () => curve.recoverPublicKey(sig, recovery, f.digest, true) !== null;
  return undefined;
}

export default {
  fetch(request: Request, env: Env): Response {
    const url = new URL(request.url);
    const n = Number(url.searchParams.get("n") ?? "0");
    const pick = curves[url.searchParams.get("curve") ?? ""];
    if (!pick) return new Response("curve: wasm or noble", { status: 400 });
    let ok = 0;
    // Each verify meets its key for the first time, as a sign-in does, unless `keys=kept` (an agent's next action):
    // the wasm curve keeps the uncompressed form of the keys it has seen (secp256k1-wasm.ts).
    const forget = url.searchParams.get("keys") === "kept" ? () => {} : forgetUncompressedKeys;
    if (url.pathname === "/verify") {
      const kind = url.searchParams.get("kind");
      const items = (JSON.parse(env.SIGNATURES) as Signed[]).filter((s) => s.kind === kind);
      if (items.length === 0) return new Response("no signatures of that kind", { status: 400 });
      // The curve is touched only when n > 0, so in a fresh isolate the first such request pays its set-up.
      const curve = n > 0 ? pick() : undefined;
      for (let i = 0; curve && i < n; i++) {
        forget();
        if (verifyMessageSignature(items[i % items.length] as Signed, curve).ok) ok += 1;
      }
    } else if (url.pathname === "/floor") {
      const op = floorOp(url.searchParams.get("op") ?? "", pick(), JSON.parse(env.FLOOR) as Floor);
      if (!op) return new Response("op: ecdsa, schnorr or recover", { status: 400 });
      for (let i = 0; i < n; i++) {
        forget();
        if (op()) ok += 1;
      }
    } else {
      return new Response("not found", { status: 404 });
    }
    return Response.json({ n, ok });
  },
} satisfies ExportedHandler<Env>;
