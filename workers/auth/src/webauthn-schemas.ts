// Schemas of the hardware-key routes (issue 27): the browser's WebAuthn answers as JSON (what @simplewebauthn/browser
// posts), the options this host issues, and a key as its owner sees it (never its public key). Named, so the routes,
// the OpenAPI description and the tests share them.
import { z } from "@hono/zod-openapi";
import { KEY_NAME_MAX } from "../../../shared/auth/webauthn/config";
import { displayText } from "../../../shared/text";
import { AccountSchema } from "./schemas";

const base64url = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .regex(/^[A-Za-z0-9_-]+$/, "must be base64url without padding");

/** A credential id: at most 1023 bytes (WebAuthn L3 §5.1), so at most 1364 base64url characters. */
export const CredentialId = base64url(1364);
const Attachment = z.enum(["platform", "cross-platform"]);
/** Unknown members (newer browsers add some) are dropped: the library reads only these. */
const Extensions = z.record(z.string(), z.unknown()).optional();

/** What every credential answer carries; each ceremony adds its `response`, which always holds clientDataJSON. */
const CredentialAnswer = z.object({
  id: CredentialId,
  rawId: CredentialId,
  type: z.literal("public-key"),
  authenticatorAttachment: Attachment.optional(),
  clientExtensionResults: Extensions,
});
const ClientData = z.object({ clientDataJSON: base64url(4096) });

export const RegistrationAnswerSchema = CredentialAnswer.extend({
  response: ClientData.extend({
    attestationObject: base64url(32_768),
    transports: z.array(z.string().max(32)).max(10).optional(),
  }),
}).openapi("WebAuthnRegistrationResponse");

export const AssertionAnswerSchema = CredentialAnswer.extend({
  response: ClientData.extend({
    authenticatorData: base64url(4096),
    signature: base64url(1024),
    // Empty for a key without a user handle (a U2F-era key): the browser package sends it as it came.
    userHandle: z.string().max(128).optional(),
  }),
}).openapi("WebAuthnAuthenticationResponse");

export const KeyName = displayText(KEY_NAME_MAX);

export const RegisterBody = z
  .strictObject({ response: RegistrationAnswerSchema, name: KeyName.optional() })
  .openapi("WebAuthnRegisterRequest");

export const SignInBody = z
  .strictObject({ response: AssertionAnswerSchema, add: z.boolean().optional() })
  .openapi("WebAuthnSignInRequest");

export const StepUpBody = z.strictObject({ response: AssertionAnswerSchema }).openapi("WebAuthnStepUpRequest");

export const RenameBody = z.strictObject({ name: KeyName }).openapi("WebAuthnRenameRequest");

export const KeyParams = z.object({ id: CredentialId.openapi({ param: { name: "id", in: "path" } }) });

const Descriptor = z.object({ id: z.string(), type: z.string(), transports: z.array(z.string()).optional() });

/** PublicKeyCredentialCreationOptionsJSON: hand it to startRegistration({optionsJSON}). */
export const CreationOptionsSchema = z
  .object({
    challenge: z.string(),
    rp: z.object({ id: z.string().optional(), name: z.string() }),
    user: z.object({ id: z.string(), name: z.string(), displayName: z.string() }),
    pubKeyCredParams: z.array(z.object({ alg: z.number(), type: z.literal("public-key") })),
    timeout: z.number().optional(),
    excludeCredentials: z.array(Descriptor).optional(),
    authenticatorSelection: z
      .object({
        authenticatorAttachment: Attachment.optional(),
        requireResidentKey: z.boolean().optional(),
        residentKey: z.enum(["discouraged", "preferred", "required"]).optional(),
        userVerification: z.enum(["discouraged", "preferred", "required"]).optional(),
      })
      .optional(),
    hints: z.array(z.string()).optional(),
    attestation: z.enum(["direct", "enterprise", "indirect", "none"]).optional(),
    extensions: z.record(z.string(), z.unknown()).optional(),
  })
  .openapi("WebAuthnCreationOptions");

/** PublicKeyCredentialRequestOptionsJSON: hand it to startAuthentication({optionsJSON}). */
export const RequestOptionsSchema = z
  .object({
    challenge: z.string(),
    timeout: z.number().optional(),
    rpId: z.string().optional(),
    allowCredentials: z.array(Descriptor).optional(),
    userVerification: z.enum(["discouraged", "preferred", "required"]).optional(),
    hints: z.array(z.string()).optional(),
    extensions: z.record(z.string(), z.unknown()).optional(),
  })
  .openapi("WebAuthnRequestOptions");

export const CreationOptionsResult = z
  .object({ ok: z.literal(true), options: CreationOptionsSchema })
  .openapi("WebAuthnCreationOptionsResult");
export const RequestOptionsResult = z
  .object({ ok: z.literal(true), options: RequestOptionsSchema })
  .openapi("WebAuthnRequestOptionsResult");

export const KeySchema = z
  .object({
    id: z.string(),
    name: z.string(),
    created_at: z.string(),
    last_used_at: z.string().nullable(),
    /** singleDevice (a security key, one device's passkey) or multiDevice (a synced passkey). */
    device_type: z.string(),
    backed_up: z.boolean(),
    transports: z.array(z.string()),
  })
  .openapi("HardwareKey");

export const KeyResult = z.object({ ok: z.literal(true), key: KeySchema }).openapi("HardwareKeyResult");
export const KeysResult = z.object({ ok: z.literal(true), keys: z.array(KeySchema) }).openapi("HardwareKeysResult");

export const StepUpResult = z
  .object({ ok: z.literal(true), account: AccountSchema, step_up_at: z.string() })
  .openapi("WebAuthnStepUpResult");
