#!/usr/bin/env node
// The repository's `oc` (package.json "bin", `npx oc` in a clone): the kit's command line (scripts/kit/cli.mjs)
// over the kit compiled from its sources, plus the operator's `open-oc restore` (docs/recovery.md). The package
// @open-oc/kit ships the same command line without restore (packages/kit/src/oc.mjs).
import { main } from "./kit/cli.mjs";
import { loadKit } from "./kit/load.mjs";
import { RESTORE_SUMMARY, restoreMain } from "./kit/restore.mjs";

process.exitCode = await main(process.argv.slice(2), {
  loadKit,
  commands: { restore: { run: restoreMain, usage: RESTORE_SUMMARY } },
});
