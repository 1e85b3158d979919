// The parse pipeline all three envelopes share (PLG SPEC §9.1 steps 1–3): version, shape and the unsigned
// structure → invalid_body; the signed values → canonicalization_failed; declared id ≠ recomputed → id_mismatch.
import { canonicalJson, type JsonValue } from "../canonical-json";
import { type MessageResult, messageId } from "./canonical";
import { type Shape, shapeProblem } from "./shape";
import type { ParseFailure, PledgeCode } from "./types";

export interface EnvelopeSpec<I> {
  kind: string;
  shape: Shape;
  malformed: PledgeCode;
  badId: PledgeCode;
  /** Rules on fields outside the message (sig, agent fields); runs after the shape check. */
  structure(envelope: Record<string, unknown>): { code: PledgeCode; detail: string } | undefined;
  input(envelope: Record<string, unknown>): I;
  message(input: I): MessageResult;
}

export interface ParsedParts {
  envelope: Record<string, unknown>;
  message: string;
  id: string;
  canonicalJson: string;
}

function refuse(reason: ParseFailure["reason"], code: PledgeCode, detail: string): ParseFailure {
  return { ok: false, reason, code, detail };
}

export async function parseWith<I>(json: unknown, spec: EnvelopeSpec<I>): Promise<ParsedParts | ParseFailure> {
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    return refuse("invalid_body", spec.malformed, "envelope must be a JSON object");
  }
  const envelope = json as Record<string, unknown>;
  if (typeof envelope.v === "number" && envelope.v !== 1) {
    return refuse("invalid_body", "E_UNSUPPORTED_VERSION", `envelope version ${envelope.v} is not supported`);
  }
  if (envelope.kind !== spec.kind) return refuse("invalid_body", spec.malformed, `kind must be ${spec.kind}`);
  const shape = shapeProblem(envelope, spec.shape, "", true);
  if (shape) return refuse("invalid_body", spec.malformed, shape);
  const structure = spec.structure(envelope);
  if (structure) return refuse("invalid_body", structure.code, structure.detail);

  const built = spec.message(spec.input(envelope));
  if (!built.ok) return refuse("canonicalization_failed", built.code, built.detail);
  const id = await messageId(built.message);
  if (envelope.id !== id) {
    return refuse("id_mismatch", spec.badId, `declared id ${String(envelope.id)} is not the recomputed ${id}`);
  }
  let text: string;
  try {
    text = canonicalJson(envelope as JsonValue);
  } catch {
    return refuse("invalid_body", spec.malformed, "envelope has a value JSON cannot carry");
  }
  return { envelope, message: built.message, id, canonicalJson: text };
}

/** `sig.alg` and `swearer.alg` are fixed to bip322 in v1. */
export function bip322Problem(value: unknown, path: string): string | undefined {
  const alg = (value as { alg?: unknown } | null)?.alg;
  return alg === "bip322" ? undefined : `${path}.alg must be bip322`;
}
