// Browsers as clients (issue 32): a request as a page of another origin sends it, and the sweep that holds a host's
// cookie and token routes to no CORS at all (no header on a GET, no permissive preflight).
import { SELF } from "cloudflare:test";
import { expect } from "vitest";
import { freshIp } from "./browser";

export const PAGE = "https://shop.example";

/** The headers a page on another origin's fetch carries, with its own client IP. */
export const fromPage = (headers: Record<string, string> = {}) => ({
  origin: PAGE,
  "sec-fetch-site": "cross-site",
  "cf-connecting-ip": freshIp(),
  ...headers,
});

/** The answer's CORS headers (all `access-control-*`). */
export const accessControl = (headers: Headers) => [...headers].filter(([name]) => name.startsWith("access-control-"));

/**
 * Every path of `paths` on `host` answers a page's GET (where `gets` has it) without a CORS header, and its preflight
 * (asking for `preflight`) with neither a 204 nor any CORS header.
 */
export async function expectNoCors(
  host: string,
  paths: readonly string[],
  { gets, preflight }: { gets: ReadonlySet<string>; preflight: Record<string, string> },
): Promise<void> {
  for (const path of paths) {
    if (gets.has(path)) {
      const res = await SELF.fetch(`${host}${path}`, { headers: fromPage(), redirect: "manual" });
      expect(res.headers.get("access-control-allow-origin"), path).toBeNull();
      await res.arrayBuffer();
    }
    const answer = await SELF.fetch(`${host}${path}`, { method: "OPTIONS", headers: fromPage(preflight) });
    expect(answer.status, path).not.toBe(204);
    expect(accessControl(answer.headers), path).toEqual([]);
    await answer.arrayBuffer();
  }
}
