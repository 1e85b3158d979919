// Rate-limit rules, as data (service-spec Limits; DECISIONS 21).
import type { BucketRule } from "./token-bucket";

/** Sign-in, challenge POST, switch, logout: 20 per minute per IP, per route. */
export const AUTH_RULE: BucketRule = { capacity: 20, windowMs: 60_000 };
/** Read endpoints: 60 per minute per IP, per route. */
export const READ_RULE: BucketRule = { capacity: 60, windowMs: 60_000 };
