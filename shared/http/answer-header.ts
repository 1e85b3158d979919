// Setting a header on a middleware's answer after the route made it. An answer passed through from another worker
// (a service binding's fetch) has immutable headers: it is copied once, then set.
import type { Context } from "hono";

export function setAnswerHeader(c: Context, name: string, value: string): void {
  try {
    c.res.headers.set(name, value);
  } catch {
    const copy = new Response(c.res.body, c.res);
    copy.headers.set(name, value);
    // Hono's setter copies the answer again when one is set already; cleared first, the copy is taken as it is.
    c.res = undefined;
    c.res = copy;
  }
}
