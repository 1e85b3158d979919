// Hardware keys (issue 27): the relying party this host is, as plain functions of its configuration. The RP ID is the
// auth host's own hostname and the expected origin exactly AUTH_ORIGIN, both pinned: a key registered here answers
// only here. COOKIE_DOMAIN does not widen the RP ID to the parent domain: only the auth host runs ceremonies, and a
// parent-domain RP ID would let any sibling host (the fleet, a consumer app) ask for assertions valid here.

/** WEBAUTHN_USER_VERIFICATION: `required` makes every ceremony demand the UV flag (PIN, biometrics). */
export type UserVerification = "required" | "preferred";

/** How long an issued challenge may be answered: one ceremony's worth, the browser's own prompt timeout. */
export const CHALLENGE_TTL_MS = 5 * 60 * 1000;
/** A challenge is this many random bytes (the spec asks for at least 16). */
export const CHALLENGE_BYTES = 32;
/** ES256 first (every authenticator has it), then Ed25519 and RS256 (Windows Hello): all three verify in workerd. */
export const SUPPORTED_ALGORITHMS = [-7, -8, -257];
/** Longest name a person may give a key. */
export const KEY_NAME_MAX = 64;

/** Transports an authenticator may name (WebAuthn L3 §5.8.4); anything else is dropped, never stored. */
export const TRANSPORTS = ["ble", "cable", "hybrid", "internal", "nfc", "smart-card", "usb"] as const;
export type Transport = (typeof TRANSPORTS)[number];

export const knownTransports = (names: readonly string[] | undefined): Transport[] =>
  (names ?? []).filter((name): name is Transport => (TRANSPORTS as readonly string[]).includes(name));

export interface RelyingParty {
  /** The auth host's hostname: what authenticators scope credentials to. */
  rpId: string;
  /** Exactly AUTH_ORIGIN: clientDataJSON.origin must equal it. */
  origin: string;
  userVerification: UserVerification;
}

export interface WebAuthnConfig {
  AUTH_ORIGIN: string;
  /** `preferred` (default) or `required`; any other value is read as `required` (a typo must not weaken it). */
  WEBAUTHN_USER_VERIFICATION?: string;
}

export function relyingParty(env: WebAuthnConfig): RelyingParty {
  const origin = new URL(env.AUTH_ORIGIN).origin;
  const configured = env.WEBAUTHN_USER_VERIFICATION?.trim();
  const userVerification =
    configured === undefined || configured === "" || configured === "preferred" ? "preferred" : "required";
  return { rpId: new URL(origin).hostname, origin, userVerification };
}

/** The name a key gets when the person gave none: what kind of credential the registration said it is. */
export function defaultKeyName(input: { deviceType: string; attachment: string | undefined }): string {
  if (input.deviceType === "multiDevice") return "Synced passkey";
  return input.attachment === "platform" ? "This device's passkey" : "Security key";
}
