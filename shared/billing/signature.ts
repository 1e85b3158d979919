// What a processor webhook signature check answers: accepted, or the reason it is refused.
import type { Reason } from "../errors";

export type SignatureVerdict =
  | { ok: true }
  | {
      ok: false;
      reason: Extract<Reason, "missing_signature" | "invalid_signature" | "webhook_timestamp_stale">;
      detail: string;
    };
