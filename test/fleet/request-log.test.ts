// The fleet's request log (README "Logs"): one line per request with x-request-id, the route pattern, the caller
// (session, token, anonymous) and the project once access to it is established; never the token, the cookie or
// the query. The log scan (test/helpers/log-scan.ts) sees these lines.
import { describe, expect, it } from "vitest";
import { FleetClient, ownerWithProject } from "../helpers/fleet";
import { capturedLines } from "../helpers/log-scan";
import { lineFor, requestLines } from "../helpers/request-lines";

describe("fleet request log", () => {
  it("names a session's request by its route pattern and project, with the id as a header", async () => {
    const { owner, projectId } = await ownerWithProject();
    const { result: res, lines } = await requestLines(() => owner.fetch(`/api/projects/${projectId}`));
    expect(res.status).toBe(200);
    const line = lineFor(lines, res);
    expect(line).toMatchObject({
      worker: "fleet",
      method: "GET",
      route: "/api/projects/:id",
      status: 200,
      caller: "session",
      project: projectId,
    });
    expect(line.t).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(typeof line.ms).toBe("number");
    expect(lines.filter((l) => l.id === line.id)).toHaveLength(1);
    expect(capturedLines().some((text) => text.includes(line.id))).toBe(true);
  });

  it("names a token's caller and project, and never the secret or the query", async () => {
    const { owner, projectId } = await ownerWithProject();
    const token = await owner.call<{ secret: string }>("POST", "/api/tokens", { project_id: projectId, name: "ci" });
    const bot = new FleetClient();
    bot.bearer = token.body.secret;
    const { result: res, lines } = await requestLines(() => bot.fetch(`/api/tokens?project_id=${projectId}`));
    expect(res.status).toBe(200);
    const line = lineFor(lines, res);
    expect(line).toMatchObject({ route: "/api/tokens", caller: "token", project: projectId });
    expect(JSON.stringify(lines)).not.toContain(token.body.secret);
    expect(JSON.stringify(line)).not.toContain("project_id=");
  });

  it("logs a refused credential as anonymous with the reason, and a path nothing answers as route null", async () => {
    const { owner } = await ownerWithProject();
    const stranger = new FleetClient();
    stranger.bearer = `ock_${"ab".repeat(32)}`;
    const { result: refused, lines } = await requestLines(() => stranger.fetch("/api/projects"));
    expect(refused.status).toBe(401);
    expect(lineFor(lines, refused)).toMatchObject({ status: 401, reason: "unauthenticated", caller: "anonymous" });
    const missing = await requestLines(() => owner.fetch("/api/projects/proj_0/no/such/thing"));
    expect(lineFor(missing.lines, missing.result)).toMatchObject({ route: null, status: 404, reason: "not_found" });
  });

  it("sets the id on an answer passed through from the auth worker (immutable headers) too", async () => {
    const { owner } = await ownerWithProject();
    const { result: res, lines } = await requestLines(() => owner.fetch("/api/auth/me"));
    expect(res.status).toBe(401);
    const line = lineFor(lines, res);
    expect(line.route).toMatch(/^\/api\/auth\/me/);
    expect(line).not.toHaveProperty("reason"); // the auth worker's own line names its refusal
  });
});
