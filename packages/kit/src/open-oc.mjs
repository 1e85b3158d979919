#!/usr/bin/env node
// The package's `oc` (bin): the kit's command line over the kit bundled beside it. The repository's own `oc`
// (scripts/oc.mjs) adds the operator's `open-oc restore`, which needs the service's schema and is not in the package.
import { main } from "../../../scripts/kit/cli.mjs";
import * as kit from "../../../shared/kit/node-entry";

process.exitCode = await main(process.argv.slice(2), { loadKit: async () => kit });
