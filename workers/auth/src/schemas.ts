// Named request and response schemas of the auth host: the routes validate with them, the OpenAPI description
// is generated from them, and the tests build requests from them.
import { z } from "@hono/zod-openapi";
import { AccountSchema, DidOc } from "../../../shared/auth/session-schemas";
import { DISPLAY_IDENTITY_KINDS } from "../../../shared/auth/session-token";
import { displayText } from "../../../shared/text";

export {
  AccountSchema,
  DidOc,
  DisplayIdentitySchema,
  LogoutQuery,
  LogoutResult,
  MeResult,
  RosterEntrySchema,
} from "../../../shared/auth/session-schemas";

// biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point.
const NO_CONTROL = /^[^\u0000-\u001f\u007f]*$/;
const line = (max: number) => z.string().min(1).max(max).regex(NO_CONTROL, "must be one line of text");

export const BitcoinAddressParam = z
  .string()
  .min(14)
  .max(90)
  .regex(/^[A-Za-z0-9]+$/, "must be a Bitcoin address");

export const ChallengeQuery = z.strictObject({
  addr: BitcoinAddressParam,
  audience: line(256).optional(),
  purpose: z
    .string()
    .regex(/^[a-z0-9_-]{1,32}$/, "lowercase letters, digits, _ or -")
    .optional(),
  ttl: z.coerce.number().int().min(30).max(600).optional(),
});

export const ChallengeSchema = z
  .object({ message: z.string(), nonce: z.string(), expiresAt: z.string() })
  .openapi("Challenge");

const Signature = z.string().min(1).max(2048);
const Message = z.string().min(1).max(2048);

export const ChallengeVerifyBody = z
  .strictObject({
    message: Message,
    signature: Signature,
    scheme: z.enum(["bip322", "legacy"]).optional(),
    expectedNonce: z.string().max(64).optional(),
    expectedAudience: z.string().max(256).optional(),
    expectedPurpose: z.string().max(64).optional(),
  })
  .openapi("ChallengeVerifyRequest");

export const ChallengeVerifyResult = z
  .union([
    z.object({
      ok: z.literal(true),
      address: z.string(),
      nonce: z.string(),
      expiresAt: z.string(),
      audience: z.string().optional(),
      purpose: z.string().optional(),
    }),
    z.object({ ok: z.literal(false), reason: z.literal("invalid_challenge"), code: z.string() }),
  ])
  .openapi("ChallengeVerifyResult");

export const SignInBody = z
  .strictObject({
    address: BitcoinAddressParam,
    message: Message,
    signature: Signature,
    nonce: z.string().max(64).optional(),
    expectedNonce: z.string().max(64).optional(),
    scheme: z.enum(["bip322", "legacy"]).optional(),
    expectedAudience: z.string().max(256).optional(),
    expectedPurpose: z.string().max(64).optional(),
    add: z.boolean().optional(),
  })
  .refine((body) => body.nonce !== undefined || body.expectedNonce !== undefined, {
    message: "nonce is required",
    path: ["nonce"],
  })
  .openapi("SignInRequest");

export const AddQuery = z.strictObject({ add: z.enum(["1", "0", "true", "false"]).optional() });

export const AccountResult = z.object({ ok: z.literal(true), account: AccountSchema }).openapi("AccountResult");

export const SwitchBody = z.strictObject({ did_oc: DidOc }).openapi("SwitchRequest");

export const AccountPatchBody = z
  .strictObject({
    display_name: displayText(64).nullable().optional(),
    display_identity: z.enum(DISPLAY_IDENTITY_KINDS).optional(),
  })
  .openapi("AccountPatchRequest");

export const JwksSchema = z
  .object({
    keys: z.array(
      z.object({
        kty: z.literal("OKP"),
        crv: z.literal("Ed25519"),
        x: z.string(),
        kid: z.string(),
        alg: z.literal("EdDSA"),
        use: z.literal("sig"),
        oc_use: z.enum(["session", "audit"]),
      }),
    ),
  })
  .openapi("JWKS");

export { errorResponses, json } from "../../../shared/http/openapi";

// ---- email codes for account security (issue 27): link, re-authentication, the recovery address and sign-in ----

export const EmailAddress = z.string().trim().max(254).email();
export const CodeDigits = z.string().regex(/^\d{6}$/, "six digits");

export const EmailCodeStartBody = z.strictObject({ email: EmailAddress }).openapi("EmailCodeStartRequest");
export const EmailCodeVerifyBody = z
  .strictObject({ email: EmailAddress, code: CodeDigits })
  .openapi("EmailCodeVerifyRequest");
export const RecoverySignInBody = z
  .strictObject({ email: EmailAddress, code: CodeDigits, add: z.boolean().optional() })
  .openapi("RecoverySignInRequest");

export const OkResult = z.object({ ok: z.literal(true) }).openapi("OkResult");

export const EmailIdentityLinkedResult = z
  .object({ ok: z.literal(true), identity: z.object({ kind: z.literal("email"), value: z.string() }) })
  .openapi("EmailIdentityLinkedResult");

/** The recovery address and when it was proven. Not a named component: nullable, the explorer would show "null". */
export const RecoveryAddressSchema = z.object({
  email: z.string(),
  set_at: z.string().openapi({ description: "When the address was proven (ISO 8601)" }),
});

export const RecoveryResult = z
  .object({ ok: z.literal(true), recovery: RecoveryAddressSchema.nullable() })
  .openapi("RecoveryResult");
