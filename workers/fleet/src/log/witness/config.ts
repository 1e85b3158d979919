// The deployment's witnesses (issue 48; docs/log.md "Witnesses"): LOG_WITNESSES, a JSON array of
// `{"vkey": "<name>+<hex key ID>+<base64(0x04 ‖ Ed25519 key)>", "url": "<submission prefix>"}`, read once per isolate
// and text by zod. A malformed list is a deployment error: it is logged once (log_witnesses_invalid) and shown on
// the log screen, and witnessing stops until it is fixed; it never fails a request. Unset or "[]": no witnesses.
import { z } from "@hono/zod-openapi";
import { logEvent } from "../../../../../shared/http/request-log";
import { type CosignerKey, parseCosignerKey } from "../../../../../shared/tlog/cosignature";

/** Enough for any policy a client would set (tlog-witness networks count witnesses in the tens). */
export const MAX_WITNESSES = 16;

export interface WitnessConfig extends CosignerKey {
  /** The vkey as configured (shown on the log screen). */
  vkey: string;
  /** POST `${url}/add-checkpoint`. */
  url: string;
}

const Witness = z.strictObject({
  vkey: z.string().transform((vkey, ctx) => {
    const key = parseCosignerKey(vkey);
    if (!key) ctx.addIssue({ code: "custom", message: "not an Ed25519 cosignature/v1 vkey (name+hex8+base64)" });
    return key ? { ...key, vkey } : z.NEVER;
  }),
  url: z.url({ protocol: /^https?$/ }).transform((url) => url.replace(/\/+$/, "")),
});

const Witnesses = z
  .array(Witness)
  .max(MAX_WITNESSES)
  .refine((list) => new Set(list.map((w) => w.vkey.name)).size === list.length, "a witness name appears twice");

export type WitnessList = { ok: true; witnesses: WitnessConfig[] } | { ok: false; error: string };

/** LOG_WITNESSES read: the list, or why it is not one (a path and a message per problem). */
export function readWitnesses(text: string | undefined): WitnessList {
  if (text === undefined || text.trim() === "") return { ok: true, witnesses: [] };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, error: "LOG_WITNESSES is not JSON" };
  }
  const parsed = Witnesses.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${["LOG_WITNESSES", ...i.path].join(".")}: ${i.message}`);
    return { ok: false, error: issues.join("; ") };
  }
  return { ok: true, witnesses: parsed.data.map((w) => ({ ...w.vkey, url: w.url })) };
}

let cached: { text: string | undefined; list: WitnessList } | undefined;

/** The configured witnesses of this isolate's environment; a bad list is logged once per isolate and text. */
export function witnessesOf(env: { LOG_WITNESSES?: string }): WitnessList {
  if (cached && cached.text === env.LOG_WITNESSES) return cached.list;
  const list = readWitnesses(env.LOG_WITNESSES);
  cached = { text: env.LOG_WITNESSES, list };
  if (!list.ok) logEvent("fleet", "log_witnesses_invalid", { detail: list.error }, "error");
  return list;
}

/** The witnesses to use: the configured list, or none while it is malformed (witnessesOf says why). */
export function configuredWitnesses(env: { LOG_WITNESSES?: string }): WitnessConfig[] {
  const list = witnessesOf(env);
  return list.ok ? list.witnesses : [];
}
