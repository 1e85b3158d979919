// Builds the static assets the workers serve, with nothing fetched from a CDN:
// - .build/public (auth and verify): the API explorer (Swagger UI from the swagger-ui-dist package) and its init
//   script, and the auth host's sign-in page script (workers/auth/src/pages/signin/*.ts, bundled by esbuild);
// - .build/fleet-public (fleet only): the same explorer plus the fleet dashboard (workers/fleet/dashboard: HTML and
//   CSS copied as they are, its TypeScript in src/ bundled by esbuild into one module, js/main.js) and its `_headers`
//   (the auth host has no fleet API, so it must not serve the dashboard).
// `--out <dir>` builds both into another folder than .build (the deploy's dry run test builds from nothing there).
import { copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { parseArgs } from "node:util";
import { build, buildSync } from "esbuild";

const require = createRequire(import.meta.url);
const root = path.join(import.meta.dirname, "..");
const swaggerDir = path.dirname(require.resolve("swagger-ui-dist/package.json"));
const { values } = parseArgs({ options: { out: { type: "string" } } });
const buildDir = path.resolve(values.out ?? path.join(root, ".build"));
const publicDir = path.join(buildDir, "public");
const out = path.join(publicDir, "api-explorer", "assets");
mkdirSync(out, { recursive: true });
for (const file of ["swagger-ui.css", "swagger-ui-bundle.js"])
  copyFileSync(path.join(swaggerDir, file), path.join(out, file));
// Our overrides of its colours (contrast), loaded after its stylesheet.
copyFileSync(path.join(root, "shared", "http", "explorer.css"), path.join(out, "explorer.css"));
writeFileSync(
  path.join(out, "explorer-init.js"),
  // No deep links: Swagger UI renders each operation's path as a link inside the button that opens it, a control
  // nested in a control that keyboard and screen-reader users cannot reach apart (WCAG 4.1.2).
  `window.ui = SwaggerUIBundle({ url: "/api/openapi", dom_id: "#explorer", deepLinking: false, withCredentials: true });\n`,
);
console.log(`api explorer assets in ${path.relative(process.cwd(), out)}`);

// The sign-in page's script as an ES module (workers/auth/src/pages/signin-page.ts SIGNIN_SCRIPT_PATH names it),
// type-checked with the DOM's types by tsconfig.browser.json; the fleet host has no sign-in page, so not copied there.
// What the page imports lazily (the Xverse wallet's client) is split into chunks/, fetched only when used; the
// folder is emptied first so an old chunk never lingers.
const authAssets = "auth-assets";
rmSync(path.join(publicDir, authAssets, "chunks"), { recursive: true, force: true });
await build({
  entryPoints: {
    signin: path.join(root, "workers", "auth", "src", "pages", "signin", "main.ts"),
    account: path.join(root, "workers", "auth", "src", "pages", "account", "main.ts"),
  },
  outdir: path.join(publicDir, authAssets),
  splitting: true,
  chunkNames: "chunks/[name]-[hash]",
  tsconfig: path.join(root, "tsconfig.browser.json"),
  bundle: true,
  minify: true,
  format: "esm",
  target: "es2022",
  logLevel: "warning",
});
console.log(`sign-in page script in ${path.relative(process.cwd(), path.join(publicDir, authAssets))}`);
// The static-asset layer answers before the worker, so its security headers come from `_headers` (the fleet has its
// own, copied below): scripts are never sniffed into another type.
writeFileSync(
  path.join(publicDir, "_headers"),
  ["/auth-assets/*", "/api-explorer/assets/*"].map((route) => `${route}\n  X-Content-Type-Options: nosniff\n`).join(""),
);

// The fleet's assets, updated in place (a running `npm start` watches this folder; wrangler stops if it vanishes);
// files removed from the dashboard's source are removed here too.
const dashboardSource = path.join(root, "workers", "fleet", "dashboard");
const fleetDir = path.join(buildDir, "fleet-public");
const dashboardOut = path.join(fleetDir, "dashboard");
cpSync(publicDir, fleetDir, {
  recursive: true,
  filter: (source) => ![authAssets, "_headers"].includes(path.basename(source)),
});
// Copied: everything but `_headers` and the TypeScript sources (bundled below into js/main.js).
const copied = (source) => !["_headers", "src"].includes(path.basename(source));
cpSync(dashboardSource, dashboardOut, { recursive: true, filter: copied });
const BUNDLE = path.join("js", "main.js");
// uPlot's own stylesheet (its legend and cursor layout), beside the bundle that carries uPlot (dashboard/src/charts.ts).
const UPLOT_CSS = "uPlot.min.css";
copyFileSync(path.join(root, "node_modules", "uplot", "dist", UPLOT_CSS), path.join(dashboardOut, UPLOT_CSS));
for (const entry of readdirSync(dashboardOut, { recursive: true })) {
  const built = entry === "js" || entry === BUNDLE || entry === `${BUNDLE}.map` || entry === UPLOT_CSS;
  if (!built && !existsSync(path.join(dashboardSource, entry)))
    rmSync(path.join(dashboardOut, entry), { recursive: true, force: true });
}
buildSync({
  entryPoints: [path.join(dashboardSource, "src", "main.ts")],
  outfile: path.join(dashboardOut, BUNDLE),
  bundle: true,
  // Minified since it carries uPlot (charts.ts): 190 KB as written, 85 KB minified (35 KB gzipped); the map keeps the sources.
  minify: true,
  format: "esm",
  target: "es2022",
  sourcemap: true,
  logLevel: "warning",
});
// Workers static assets read `_headers` from the root of the assets directory.
copyFileSync(path.join(dashboardSource, "_headers"), path.join(fleetDir, "_headers"));
console.log(`fleet dashboard assets in ${path.relative(process.cwd(), fleetDir)}`);
