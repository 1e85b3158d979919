// Builds .build/public, the static assets the workers serve: the API explorer (Swagger UI from the
// swagger-ui-dist package, so nothing is fetched from a CDN) and its init script.
import { copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(import.meta.url);
const swaggerDir = path.dirname(require.resolve("swagger-ui-dist/package.json"));
const out = path.join(import.meta.dirname, "..", ".build", "public", "api-explorer", "assets");
mkdirSync(out, { recursive: true });
for (const file of ["swagger-ui.css", "swagger-ui-bundle.js"])
  copyFileSync(path.join(swaggerDir, file), path.join(out, file));
writeFileSync(
  path.join(out, "explorer-init.js"),
  `window.ui = SwaggerUIBundle({ url: "/api/openapi", dom_id: "#explorer", deepLinking: true, withCredentials: true });\n`,
);
console.log(`api explorer assets in ${path.relative(process.cwd(), out)}`);
