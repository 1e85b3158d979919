// A GET or HEAD that carries a body, as one arrives from the network (curl -X GET --data …). Neither fetch nor
// Request lets a test build one, so a POST carrying the body stands in with its method read as the one asked for;
// the app is then called in the test's own isolate (a service binding would refuse it the same way).
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";

/** `bytes` bytes of body as one stream without Content-Length (chunked on the wire). */
export function bodyOf(bytes: number): ReadableStream<Uint8Array> {
  const chunk = new Uint8Array(16 * 1024).fill(0x61);
  let left = bytes;
  return new ReadableStream({
    pull(controller) {
      if (left <= 0) return controller.close();
      const piece = chunk.subarray(0, Math.min(left, chunk.length));
      left -= piece.length;
      controller.enqueue(piece);
    },
  });
}

/** A request whose method reads `method` (GET or HEAD) while its body is `body`. */
export function withBody(
  method: "GET" | "HEAD",
  url: string,
  body: ReadableStream<Uint8Array>,
  headers: Record<string, string> = {},
): Request {
  const carrier = new Request(url, { method: "POST", headers, body, duplex: "half" } as RequestInit);
  return new Proxy(carrier, {
    get(target, prop) {
      if (prop === "method") return method;
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** The answer of `app` (a worker's Hono app) to `request`, with the test's bindings, once its background work ends. */
export async function answerOf<E>(
  app: { fetch: (request: Request, env: E, ctx: ExecutionContext) => Response | Promise<Response> },
  request: Request,
): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await app.fetch(request, env as E, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}
