// The BIP-322 bench worker started the way the product workers start: the verifier warmed at global scope
// (shared/bitcoin/warm-up.ts), so its first-verify figure is what a fresh isolate of auth, fleet or verify pays.
import { warmVerifier } from "../../shared/bitcoin/warm-up";

export { default } from "./bip322-loop";

warmVerifier();
