// The WebAuthn ceremonies over @simplewebauthn/server: options out, verdicts in, no env and no I/O (the caller stores
// and consumes the challenge). The library (maintained, typed, widely used) parses CBOR/COSE and checks origin, RP
// ID hash, flags, attestation formats, counters and signatures with WebCrypto only, so it runs in workerd as it is;
// none of that is hand-written here.
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from "@simplewebauthn/server";
import { decodeClientDataJSON, isoBase64URL } from "@simplewebauthn/server/helpers";
import {
  CHALLENGE_BYTES,
  CHALLENGE_TTL_MS,
  knownTransports,
  type RelyingParty,
  SUPPORTED_ALGORITHMS,
  type Transport,
} from "./config";
import { classifyLibraryError, type WebAuthnFailure } from "./failures";

/** A key as the store holds it: its public key (COSE, base64url) and last counter, never anything secret. */
export interface StoredKey {
  id: string;
  publicKey: string;
  counter: number;
  transports: Transport[];
}

/** `navigator.credentials.create()`'s answer as JSON (what the browser package's startRegistration returns). */
export interface RegistrationAnswer {
  id: string;
  rawId: string;
  type: "public-key";
  authenticatorAttachment?: "platform" | "cross-platform";
  response: { clientDataJSON: string; attestationObject: string; transports?: string[] };
}

/** `navigator.credentials.get()`'s answer as JSON (startAuthentication's). */
export interface AssertionAnswer {
  id: string;
  rawId: string;
  type: "public-key";
  authenticatorAttachment?: "platform" | "cross-platform";
  response: { clientDataJSON: string; authenticatorData: string; signature: string; userHandle?: string };
}

export type Verdict<T> = ({ ok: true } & T) | { ok: false; failure: WebAuthnFailure };

const descriptor = (key: Pick<StoredKey, "id" | "transports">) => ({ id: key.id, transports: key.transports });
/** Fresh challenge bytes (typed over a plain ArrayBuffer, as the library's options want). */
const challengeBytes = () => crypto.getRandomValues(new Uint8Array(CHALLENGE_BYTES));

/** The challenge a response answers, read from its clientDataJSON (undefined when that is not readable). */
export function answeredChallenge(clientDataJSON: string): string | undefined {
  try {
    const challenge: unknown = decodeClientDataJSON(clientDataJSON).challenge;
    return typeof challenge === "string" && challenge.length > 0 && challenge.length <= 128 ? challenge : undefined;
  } catch {
    return undefined;
  }
}

export function registrationOptions(
  rp: RelyingParty,
  input: { accountId: string; userName: string; exclude: Pick<StoredKey, "id" | "transports">[] },
): Promise<PublicKeyCredentialCreationOptionsJSON> {
  return generateRegistrationOptions({
    // A display name for the prompt; the host name says where the key will work, and needs no configuration.
    rpName: rp.rpId,
    rpID: rp.rpId,
    // The user handle: the account's internal id (random, not personal; the JWT's `sub`), one handle per account.
    userID: Uint8Array.from(new TextEncoder().encode(input.accountId)),
    userName: input.userName,
    userDisplayName: input.userName,
    challenge: challengeBytes(),
    timeout: CHALLENGE_TTL_MS,
    // No attestation trust chain is checked (there is no allow-list of makers), so none is asked for.
    attestationType: "none",
    excludeCredentials: input.exclude.map(descriptor),
    // A discoverable credential where the authenticator can make one: that is what lets a passkey sign in alone.
    authenticatorSelection: { residentKey: "preferred", userVerification: rp.userVerification },
    supportedAlgorithmIDs: SUPPORTED_ALGORITHMS,
  });
}

/**
 * Options for an assertion: `allow` names the account's keys and asks for user verification whatever the host's
 * setting (a step-up counts only with UV); none for a discoverable sign-in, which asks as the host is configured.
 */
export function assertionOptions(
  rp: RelyingParty,
  allow: Pick<StoredKey, "id" | "transports">[] | undefined,
): Promise<PublicKeyCredentialRequestOptionsJSON> {
  return generateAuthenticationOptions({
    rpID: rp.rpId,
    challenge: challengeBytes(),
    timeout: CHALLENGE_TTL_MS,
    userVerification: allow ? "required" : rp.userVerification,
    ...(allow && { allowCredentials: allow.map(descriptor) }),
  });
}

export interface NewKey extends StoredKey {
  deviceType: "singleDevice" | "multiDevice";
  backedUp: boolean;
}

export async function verifyRegistration(
  rp: RelyingParty,
  input: { answer: RegistrationAnswer; challenge: string },
): Promise<Verdict<{ key: NewKey }>> {
  try {
    const verified = await verifyRegistrationResponse({
      response: { ...input.answer, clientExtensionResults: {} },
      expectedChallenge: input.challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.rpId,
      requireUserPresence: true,
      requireUserVerification: rp.userVerification === "required",
      supportedAlgorithmIDs: SUPPORTED_ALGORITHMS,
    });
    if (!verified.verified) return { ok: false, failure: { kind: "attestation" } };
    const { credential, credentialDeviceType, credentialBackedUp } = verified.registrationInfo;
    return {
      ok: true,
      key: {
        id: credential.id,
        publicKey: isoBase64URL.fromBuffer(credential.publicKey),
        counter: credential.counter,
        transports: knownTransports(input.answer.response.transports),
        deviceType: credentialDeviceType,
        backedUp: credentialBackedUp,
      },
    };
  } catch (err) {
    return { ok: false, failure: classifyLibraryError(err) };
  }
}

/**
 * An assertion by the stored `key`: origin, RP ID, flags, signature and counter by the library (its counter rule is
 * the spec's, §7.2: when either counter is non-zero the new one must be greater). The key's account is the store's
 * (the caller looked the key up by id); the user handle is not held against it, because a merge
 * (shared/db/merge.ts) moves keys to the surviving account while authenticators keep the absorbed one's handle.
 * `userVerified`: the UV flag was set (review 3, item 6: only such an assertion is a step-up);
 * `requireUserVerification` refuses one without it whatever the host's setting.
 */
export async function verifyAssertion(
  rp: RelyingParty,
  input: { answer: AssertionAnswer; challenge: string; key: StoredKey; requireUserVerification?: boolean },
): Promise<Verdict<{ counter: number; userVerified: boolean }>> {
  try {
    const verified = await verifyAuthenticationResponse({
      response: { ...input.answer, clientExtensionResults: {} },
      expectedChallenge: input.challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.rpId,
      requireUserVerification: input.requireUserVerification === true || rp.userVerification === "required",
      credential: {
        id: input.key.id,
        publicKey: isoBase64URL.toBuffer(input.key.publicKey),
        counter: input.key.counter,
        transports: input.key.transports,
      },
    });
    if (!verified.verified) return { ok: false, failure: { kind: "signature" } };
    const { newCounter, userVerified } = verified.authenticationInfo;
    return { ok: true, counter: newCounter, userVerified };
  } catch (err) {
    return { ok: false, failure: classifyLibraryError(err) };
  }
}
