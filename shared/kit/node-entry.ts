// Everything the `oc` CLI and the Node scripts use from the kit, as one module (scripts/kit/load.mjs imports it).

// Operator tooling, not part of any published kit entry: `oc restore` (docs/recovery.md).
export * from "../audit/restore/index";
export * from "./consumer/index";
export * from "./envelopes/index";
export * from "./webhooks/index";
