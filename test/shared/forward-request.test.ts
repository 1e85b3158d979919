// A request passed on through a service binding goes with its body read whole (shared/http/forward.ts): passed on
// as the client's stream, a body the other worker answered unread was still pumped from the client after the answer
// went out, and workerd reported "Can't read from request stream after response has been sent" as an uncaught
// exception (the route fuzz's POST /api/verify with a wrong content type printed it on every run).
import { describe, expect, it } from "vitest";
import { MAX_BODY_BYTES } from "../../shared/http/body-limit";
import { forwardRequest } from "../../shared/http/forward";
import { bodyOf, withBody } from "../helpers/get-with-body";

function recorder() {
  const seen: Request[] = [];
  const fetcher = {
    fetch: async (request: Request) => {
      seen.push(request);
      return new Response(null, { status: 415 }); // answered without reading the body
    },
  } as unknown as Fetcher;
  return { seen, fetcher };
}

describe("forwardRequest", () => {
  it("passes a body on as bytes read here, never the client's stream, with the method, URL and headers", async () => {
    const { seen, fetcher } = recorder();
    const stream = new Blob(['{"address":"bc1q"}']).stream();
    const incoming = new Request("https://auth.example/api/verify?x=1", {
      method: "POST",
      headers: { "content-type": "text/plain", "x-other": "kept" },
      body: stream,
      duplex: "half",
    } as RequestInit);
    const answer = await forwardRequest(fetcher, incoming);
    expect(answer.status).toBe(415);
    const [sent] = seen;
    expect(sent).not.toBe(incoming);
    expect(incoming.bodyUsed).toBe(true); // read here, before the other worker was asked
    expect(sent?.method).toBe("POST");
    expect(sent?.url).toBe("https://auth.example/api/verify?x=1");
    expect(sent?.headers.get("x-other")).toBe("kept");
    expect(await sent?.text()).toBe('{"address":"bc1q"}');
  });

  it("passes a request without a body on as it is", async () => {
    const { seen, fetcher } = recorder();
    const incoming = new Request("https://auth.example/api/check?addr=x");
    await forwardRequest(fetcher, incoming);
    expect(seen[0]).toBe(incoming);
  });

  it("passes a GET or HEAD on without its body, never reading it (review 3, item 4)", async () => {
    for (const method of ["GET", "HEAD"] as const) {
      const { seen, fetcher } = recorder();
      const incoming = withBody(method, "https://auth.example/api/check?addr=x", bodyOf(1024 * 1024), {
        "x-other": "kept",
        "content-length": `${1024 * 1024}`,
      });
      await forwardRequest(fetcher, incoming);
      const [sent] = seen;
      expect(sent?.method, method).toBe(method);
      expect(sent?.url).toBe("https://auth.example/api/check?addr=x");
      expect(sent?.headers.get("x-other")).toBe("kept");
      expect(sent?.headers.get("content-length")).toBeNull();
      expect(sent?.body).toBeNull();
      expect(incoming.bodyUsed).toBe(false);
    }
  });

  it("refuses a chunked body past the limit with body_too_large, counted as it streams", async () => {
    const { seen, fetcher } = recorder();
    const incoming = new Request("https://auth.example/api/verify", {
      method: "POST",
      body: bodyOf(MAX_BODY_BYTES + 1),
      duplex: "half",
    } as RequestInit);
    await expect(forwardRequest(fetcher, incoming)).rejects.toMatchObject({ reason: "body_too_large" });
    expect(seen).toHaveLength(0);
  });
});
