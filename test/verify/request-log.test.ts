// The verify worker's request log (README "Logs"): one line per request with x-request-id and the route pattern,
// the answers the isolate keeps (served before the router) included; never the query.
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { fixture, fund, publishAttestation } from "../helpers/attestations";
import { capturedLines } from "../helpers/log-scan";
import { lineFor, requestLines } from "../helpers/request-lines";

const VERIFY = "http://localhost:8789";
const get = (path: string, init: RequestInit = {}) => SELF.fetch(`${VERIFY}${path}`, init);

describe("verify request log", () => {
  it("logs an unknown path as route null and a wrong method as 405, each with the id as a header", async () => {
    const missing = await requestLines(() => get("/api/nothing?addr=bc1qsecret"));
    expect(missing.result.status).toBe(404);
    const line = lineFor(missing.lines, missing.result);
    expect(line).toMatchObject({
      worker: "verify",
      route: null,
      status: 404,
      reason: "not_found",
      caller: "anonymous",
    });
    expect(JSON.stringify(line)).not.toContain("bc1qsecret");
    const method = await requestLines(() => get("/api/check", { method: "DELETE" }));
    expect(lineFor(method.lines, method.result)).toMatchObject({ status: 405, reason: "method_not_allowed" });
    expect(capturedLines().some((text) => text.includes(line.id))).toBe(true);
  });

  it("logs a refused query by its route, without the query", async () => {
    const { result: res, lines } = await requestLines(() => get("/api/check?min_sats=lots"));
    expect(res.status).toBe(400);
    const line = lineFor(lines, res);
    expect(line).toMatchObject({ route: "/api/check", status: 400, reason: "invalid_query" });
    expect(JSON.stringify(line)).not.toContain("min_sats");
  });

  it("logs an answer the isolate keeps (served before the router) as the route's, with its own id", async () => {
    const a = fixture("p2wpkh");
    await publishAttestation(a);
    await fund(a.address, 70_000, 12);
    const path = `/api/check?addr=${a.address}&min_sats=4`;
    const first = await requestLines(() => get(path));
    expect(first.result.status).toBe(200);
    const computed = lineFor(first.lines, first.result);
    const hit = await requestLines(() => get(path));
    expect(hit.result.headers.get("x-cache")).toBe("HIT");
    const line = lineFor(hit.lines, hit.result);
    expect(line).toMatchObject({ worker: "verify", method: "GET", route: "/api/check", status: 200 });
    expect(line.id).not.toBe(computed.id);
    expect(JSON.stringify([computed, line])).not.toContain(a.address);
  });
});
