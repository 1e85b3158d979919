// setAnswerHeader: a middleware's header lands on the route's answer, also when that answer's headers are immutable
// (as a service binding's pass-through, or Response.redirect, makes them): copied once, then set.
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { setAnswerHeader } from "../../shared/http/answer-header";

describe("setAnswerHeader", () => {
  const app = new Hono();
  app.use("*", async (c, next) => {
    await next();
    setAnswerHeader(c, "X-Set-After", "yes");
  });
  app.get("/mutable", (c) => c.text("ok"));
  app.get("/immutable", () => Response.redirect("https://example.com/elsewhere", 302));

  it("sets the header on an ordinary answer and on one whose headers are immutable, keeping the answer", async () => {
    const plain = await app.request("/mutable");
    expect(plain.headers.get("x-set-after")).toBe("yes");
    expect(await plain.text()).toBe("ok");
    expect(() => Response.redirect("https://example.com/", 302).headers.set("x", "y")).toThrow();
    const redirect = await app.request("/immutable");
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get("location")).toBe("https://example.com/elsewhere");
    expect(redirect.headers.get("x-set-after")).toBe("yes");
  });
});
