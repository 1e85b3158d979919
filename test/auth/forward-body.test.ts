// The verification paths the auth host forwards to the verify worker (review 3, item 4): a GET or HEAD goes on
// without its body, and a body past the limit is refused 413 body_too_large whatever the method, counted while it
// streams (no Content-Length) and never read whole. Before, a GET's body was read whole and the forward answered 500.
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { MAX_BODY_BYTES } from "../../shared/http/body-limit";
import { app } from "../../workers/auth/src/app";
import { AUTH_ORIGIN } from "../helpers/browser";
import { answerOf, bodyOf, withBody } from "../helpers/get-with-body";

const MB = 1024 * 1024;
const PATHS = ["/api/check?addr=x", "/api/discover", "/api/verify"];

async function reasonOf(res: Response): Promise<string | undefined> {
  return ((await res.json()) as { reason?: string }).reason;
}

describe("a body on the forwarded verification paths", () => {
  it("a GET with a 1 MB chunked body: 413 body_too_large, not 500", async () => {
    for (const path of PATHS) {
      const res = await answerOf(app, withBody("GET", `${AUTH_ORIGIN}${path}`, bodyOf(MB)));
      expect(res.status, path).toBe(413);
      expect(await reasonOf(res), path).toBe("body_too_large");
    }
  });

  it("a GET or HEAD declaring a 1 MB body: 413 on the header alone", async () => {
    for (const method of ["GET", "HEAD"] as const) {
      const request = withBody(method, `${AUTH_ORIGIN}/api/check?addr=x`, bodyOf(16), { "content-length": `${MB}` });
      const res = await answerOf(app, request);
      expect(res.status, method).toBe(413);
    }
  });

  it("a GET with a small body is answered by the verify worker as without one", async () => {
    const res = await answerOf(app, withBody("GET", `${AUTH_ORIGIN}/api/check?addr=x`, bodyOf(100)));
    expect(res.status).toBe(400);
    expect(await reasonOf(res)).toBe("invalid_query");
    const plain = await SELF.fetch(`${AUTH_ORIGIN}/api/check?addr=x`);
    expect(plain.status).toBe(400);
    expect(await reasonOf(plain)).toBe("invalid_query");
  });

  it("a POST /api/verify with a chunked body one byte past the limit: 413 body_too_large", async () => {
    const res = await SELF.fetch(`${AUTH_ORIGIN}/api/verify`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: bodyOf(MAX_BODY_BYTES + 1),
      duplex: "half",
    } as RequestInit);
    expect(res.status).toBe(413);
    expect(await reasonOf(res)).toBe("body_too_large");
  });
});
