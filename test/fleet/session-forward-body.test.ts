// The fleet's session routes, answered by the auth worker through its service binding (review 3, item 4): a GET
// goes on without its body, and a body past the limit is refused 413 body_too_large whatever the method, before it
// is read whole. Before, a GET's body was read whole and the forward answered 500.
import { describe, expect, it } from "vitest";
import { app } from "../../workers/fleet/src/app";
import { FLEET } from "../helpers/fleet";
import { answerOf, bodyOf, withBody } from "../helpers/get-with-body";

describe("a body on the forwarded session routes", () => {
  it("GET /api/auth/me with a 1 MB chunked body: 413 body_too_large, not 500", async () => {
    const res = await answerOf(app, withBody("GET", `${FLEET}/api/auth/me`, bodyOf(1024 * 1024)));
    expect(res.status).toBe(413);
    expect(((await res.json()) as { reason: string }).reason).toBe("body_too_large");
  });

  it("GET /api/auth/me with a small body reaches the auth worker without it", async () => {
    const res = await answerOf(app, withBody("GET", `${FLEET}/api/auth/me`, bodyOf(100)));
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ via: "auth", path: "/api/auth/me" });
  });
});
