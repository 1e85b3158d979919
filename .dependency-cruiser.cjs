// The architecture as rules `npm run lint` checks (dependency-cruiser; issue 31): each worker builds on `shared/`
// and its own folder only, `shared/` never reaches into a worker, no module imports itself round a circle (type-only
// imports included: a circle of types is still a knot to untie before a module can move), and the scripts the
// browser runs import only modules written for the browser. test/scripts/architecture.node.test.ts holds the rules
// against this tree and against a fixture that breaks each one.

/** Modules bundled for the browser (scripts/build-assets.mjs; type-checked by tsconfig.browser.json). */
const BROWSER = "^(workers/auth/src/pages/[^/]+/|workers/fleet/dashboard/src/|shared/browser/)";
/** What browser modules may import besides each other: the two browser packages the pages use. */
const BROWSER_PACKAGES = "^node_modules/(@simplewebauthn/browser|@sats-connect/core)/";

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "A module reaches itself through its imports; move the shared part into a module both can import.",
      from: {},
      to: { circular: true },
    },
    {
      name: "no-worker-to-worker",
      severity: "error",
      comment: "A worker imports another worker's module; what both need belongs in shared/.",
      from: { path: "^workers/([^/]+)/" },
      to: { path: "^workers/", pathNot: "^workers/$1/" },
    },
    {
      name: "workers-import-shared-only",
      severity: "error",
      comment: "A worker imports something outside its own folder, shared/ and its packages (tests, scripts, bench).",
      from: { path: "^workers/" },
      to: { pathNot: "^(workers/|shared/|node_modules/|cloudflare:)", dependencyTypesNot: ["core"] },
    },
    {
      name: "shared-imports-no-worker",
      severity: "error",
      comment: "shared/ imports a worker's module; the library must not depend on what is built from it.",
      from: { path: "^shared/" },
      to: { path: "^workers/" },
    },
    {
      name: "browser-imports-browser-only",
      severity: "error",
      comment: "A module the browser runs imports one written for a worker, for Node or a package not meant for pages.",
      from: { path: BROWSER },
      to: { pathNot: `${BROWSER}|${BROWSER_PACKAGES}` },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(^|/)(node_modules|dist|\\.build|\\.wrangler)/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      extensions: [".ts", ".d.ts", ".js", ".mjs", ".cjs", ".json"],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
