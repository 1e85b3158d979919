// The verifier's first use, moved to the isolate's start. In a fresh isolate the first BIP-322 verify costs 15-19 ms
// (bench/RESULTS.md): V8 compiles each WebAssembly and JavaScript function on its first call, and libsecp256k1's
// context is made then. On the Workers Free plan a request has 10 ms of CPU, so a cold sign-in or registration
// could be cut off. Run at global scope, that work counts against the startup limit (1 s) instead, and the first
// request's verify costs what any other does. Each worker that verifies calls this once, from its entry module.
import { verifyMessageSignature } from "./bip322";

export const WARM_UP_MESSAGE = "open verifier warm-up";

/** One valid signature per address type the verifier takes apart differently, signed once by bip322-js. */
export const WARM_UP_SIGNATURES = [
  {
    kind: "p2pkh (BIP-137)",
    address: "12taL3qRQmLTE9wpSajwwG1m6SfgGMcKbU",
    signature: "H+EIoUrfHdRDNCUlz/5YdsQ+Ydn8BhjbChg5maWQdjOLFkGmwpl9xFKJ1PUMoRrGUj3T9OM6smhfNLkcgG/9Mzk=",
  },
  {
    kind: "p2sh-p2wpkh",
    address: "34xP63GeryTnYDfvQ5nCHpr6kfvTsXSiBH",
    signature:
      "AkcwRAIgJLiFAL4WRuN18VNVF8DuD+LIiafK1h0TOQ6uV8VIlroCIE2ThPcGoM2XgndlEoEgxRExrYlWeoJN0ktrfon2UY6cASEDvbkLkMf/7c02HmBqdnyAyQTW+4Oag/S5Ie4AFDxlVOQ=",
  },
  {
    kind: "p2wpkh",
    address: "bc1qm4qcqz3s8kng82k54nxkqq05fuyn2rs3xl86lf",
    signature:
      "AkgwRQIhAKxQEYPy8M+kmKAwOTUZEp8/aZq7jBQj/JxOCqMMav8GAiBryu4LNkkepKwzr5ae2toUngp+5GDK7aVbGKeF9oCd2QEhAt7OXNLquFuk8A9ah7ZHwm7Ijp51Yn2+My4tvaWEadWs",
  },
  {
    kind: "p2tr",
    address: "bc1ph2dxfscqr7gw8d7muz4ux9gkxrzq9av64h23qryckj8wyl9y03zsprjldl",
    signature: "AUF4jYStDAprMk95Gv/0FtzAMnRbT21K6WUn9uTw5wMjbdecg91/lPdKhe1hVwYwZ9jdVWQm+5QDq0sHKTbtByZjAQ==",
  },
] as const;

/**
 * Verifies the four warm-up signatures with the isolate's libsecp256k1 and answers how many verified (4 when the
 * verifier works). Never throws: a curve that cannot be instantiated now is reported by the request that needs it.
 */
export function warmVerifier(): number {
  let verified = 0;
  try {
    for (const { address, signature } of WARM_UP_SIGNATURES) {
      if (verifyMessageSignature({ address, message: WARM_UP_MESSAGE, signature }).ok) verified += 1;
    }
  } catch {
    // Secp256k1UnavailableError: the request that verifies will fail closed with it.
  }
  return verified;
}
