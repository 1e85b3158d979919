#!/usr/bin/env node
// The `oc` command (package.json "bin"): the integrator kit's CLI, see scripts/kit/cli.mjs or `oc --help`.
import { main } from "./kit/cli.mjs";

process.exitCode = await main(process.argv.slice(2));
