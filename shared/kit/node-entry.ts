// Everything the `oc` CLI and the Node scripts use from the kit, as one module (scripts/kit/load.mjs imports it).
export * from "./consumer/index";
export * from "./envelopes/index";
export * from "./webhooks/index";
