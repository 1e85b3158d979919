// Whether the workers a deploy is about to upload are its own (issue 45): production keeps the bare names (verify,
// auth, fleet), which may already name other workers on the account, and `wrangler deploy` replaces a same-named
// worker without a word. Every deploy tags the versions it uploads (`wrangler deploy --tag oc-deploy`); a worker that
// exists with no tagged version among those `wrangler versions list` shows was not made by this deploy, and the
// deploy stops before it creates anything, unless told to replace it (`--replace <name>`, or `--yes`).

/** The tag on every version this deploy uploads (wrangler's `workers/tag` annotation). */
export const DEPLOY_TAG = "oc-deploy";

/** Whether `versions` (as `wrangler versions list --json` prints them) include one this deploy uploaded. */
export const madeByDeploy = (versions) => versions.some((v) => v.annotations?.["workers/tag"] === DEPLOY_TAG);

/**
 * The first worker of `found` (`{ name, versions }`, versions undefined when no such worker exists) that exists, was
 * not made by this deploy and is not in `replace` (nor `yes` given); undefined when none.
 */
export function foreignWorker(found, { replace = [], yes = false } = {}) {
  if (yes) return undefined;
  return found.find((w) => w.versions !== undefined && !madeByDeploy(w.versions) && !replace.includes(w.name))?.name;
}

/** The refusal, in one line: which worker, why, and the two ways on. */
export const foreignWorkerMessage = (name) =>
  `a worker named ${name} already exists on this Cloudflare account and was not deployed by npm run deploy: ` +
  `deploying would replace it; use another account or environment, or run again with --replace ${name} ` +
  "(or --yes) if it is this deployment's";
