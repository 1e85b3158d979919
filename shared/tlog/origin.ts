// The name of a project's log on a fleet (docs/log.md "Names"): its origin is the tiles' URL prefix without its
// scheme, `<fleet host>/api/log/<project>` (C2SP tlog-tiles), and the checkpoint's signature is under that same name
// (tlog-checkpoint). Before issue 48 the origin was `<fleet host>/log/<project>` signed under the host alone; those
// checkpoints stay valid: the same log, the same audit key, so a client accepts both forms and compares them.

/** The origin (and the log's key name) of `projectId`'s log on the fleet at `fleetHost` (a URL's host). */
export const logOrigin = (fleetHost: string, projectId: string) => `${fleetHost}/api/log/${projectId}`;

/** The origin before issue 48, whose checkpoints were signed under the fleet's host. */
export const legacyLogOrigin = (fleetHost: string, projectId: string) => `${fleetHost}/log/${projectId}`;

/** The key name a checkpoint with `origin` is signed under: the origin itself, or the host for the old form. */
export function logKeyName(origin: string, fleetHost: string, projectId: string): string | undefined {
  if (origin === logOrigin(fleetHost, projectId)) return origin;
  if (origin === legacyLogOrigin(fleetHost, projectId)) return fleetHost;
  return undefined;
}
