// Everything the `oc` CLI and the Node scripts use from the kit, as one module (scripts/kit/load.mjs compiles it in a
// clone; the package bundles it into its own `oc`).
export * from "./consumer/index";
export * from "./envelopes/index";
export * from "./log/index";
export * from "./webhooks/index";
