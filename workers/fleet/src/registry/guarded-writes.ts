// The registration routes. Their write re-checks the caller's access inside its own batch (intake.ts,
// conditions.ts), so a bearer token this isolate has already read needs no read before it: the batch refuses a
// token revoked since, and a refusal of any other kind confirms the access first (confirmRefusedAccess), so a dead
// token learns nothing but 401. Every other route reads the token on every request. A test holds this list to the
// routes whose OpenAPI description answers `already_registered`.
const GUARDED: readonly RegExp[] = [
  /^\/api\/delegations(\/federation)?$/,
  /^\/api\/subdelegations$/,
  /^\/api\/actions$/,
  /^\/api\/revocations$/,
  /^\/api\/pledges$/,
  /^\/api\/pledges\/[^/]+\/(outcome|abandon)$/,
  /^\/api\/pledge-(outcomes|abandonments)$/,
];

export const isGuardedWrite = (method: string, path: string): boolean =>
  method === "POST" && GUARDED.some((pattern) => pattern.test(path));
