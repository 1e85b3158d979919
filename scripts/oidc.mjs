// A local OpenID Connect provider for the README walk-through (the one the tests use; it signs anyone in as
// "johndoe" without a login page). Start the workers against it:
//   OIDC_ISSUER=http://127.0.0.1:8791 OIDC_CLIENT_ID=local OIDC_CLIENT_SECRET=local OIDC_LABEL="Local OIDC" npm start
import { startOidc } from "../test/harness/oidc-server.mjs";
import { listening, parseCli } from "./lib/cli.mjs";

const USAGE = `A local OpenID Connect provider (signs anyone in as "johndoe", no login page).

  npm run oidc                      (OIDC_PORT=8791 by default)

Then start the workers against it:
  OIDC_ISSUER=http://127.0.0.1:8791 OIDC_CLIENT_ID=local OIDC_CLIENT_SECRET=local OIDC_LABEL="Local OIDC" npm start`;

parseCli(USAGE);
const port = Number(process.env.OIDC_PORT ?? 8791);
const oidc = await listening("the OpenID provider", port, () => startOidc({ port }));
console.log(`OpenID Connect provider at ${oidc.issuer} (discovery: ${oidc.issuer}/.well-known/openid-configuration)`);
process.on("SIGINT", async () => {
  await oidc.close();
  process.exit(0);
});
