// The abandonment envelope (oc-wire-formats §4.5): the swearer's one-way retraction, counted as broken.
// Who may sign it (the pledge's swearer, never its agent) is checked against the stored pledge in rules.ts.
import { canonicalJson, type JsonValue } from "../canonical-json";
import { abandonmentMessage, messageId } from "./canonical";
import type { PledgeSigner } from "./envelope";
import { bip322Problem, type EnvelopeSpec, parseWith } from "./parse";
import { SIG_SHAPE } from "./shape";
import type { AbandonmentEnvelope, AbandonmentInput, ParsedAbandonment, ParseResult } from "./types";

const ABANDONMENT_SPEC: EnvelopeSpec<AbandonmentInput> = {
  kind: "pledge-abandonment",
  shape: {
    v: "number",
    kind: "string",
    id: "string",
    pledge_id: "string",
    abandoned_at: "string",
    reason: "string",
    sig: { shape: SIG_SHAPE },
  },
  malformed: "E_ABANDONMENT_MALFORMED",
  badId: "E_ABANDONMENT_BAD_ID",
  structure(raw) {
    const detail = bip322Problem(raw.sig, "sig");
    return detail === undefined ? undefined : { code: "E_ABANDONMENT_MALFORMED", detail };
  },
  input: (raw) => raw as unknown as AbandonmentInput,
  message: abandonmentMessage,
};

export async function parseAbandonmentEnvelope(json: unknown): Promise<ParseResult<ParsedAbandonment>> {
  const parsed = await parseWith(json, ABANDONMENT_SPEC);
  if (!("envelope" in parsed)) return parsed;
  return {
    ok: true,
    kind: "pledge-abandonment",
    ...parsed,
    envelope: parsed.envelope as unknown as AbandonmentEnvelope,
  };
}

/** Builds and signs an abandonment; the signer must be the pledge's swearer. Throws on invalid inputs. */
export async function createAbandonmentEnvelope(
  input: AbandonmentInput,
  signer: PledgeSigner,
): Promise<ParsedAbandonment> {
  const built = abandonmentMessage(input);
  if (!built.ok) throw new RangeError(`${built.code}: ${built.detail}`);
  const id = await messageId(built.message);
  const envelope: AbandonmentEnvelope = {
    v: 1,
    kind: "pledge-abandonment",
    id,
    ...input,
    sig: { alg: "bip322", pubkey: signer.address, value: signer.sign(id) },
  };
  const text = canonicalJson(envelope as unknown as JsonValue);
  return { ok: true, kind: "pledge-abandonment", envelope, message: built.message, id, canonicalJson: text };
}
