// Reading the request log in a workerd test: the JSON lines the worker writes to the console while `run` runs, and
// the one line of an answer (by its x-request-id).
import { expect, vi } from "vitest";
import type { RequestLine } from "../../shared/http/request-line";
import { REQUEST_ID_HEADER } from "../../shared/http/request-log";

function parsed(text: unknown): RequestLine[] {
  try {
    const line: unknown = JSON.parse(String(text));
    return line && typeof line === "object" && "route" in line ? [line as RequestLine] : [];
  } catch {
    return [];
  }
}

/** The request lines written to console.log and console.error while `run` runs. */
export async function requestLines<T>(run: () => Promise<T>): Promise<{ result: T; lines: RequestLine[] }> {
  const out = vi.spyOn(console, "log");
  const err = vi.spyOn(console, "error");
  try {
    const result = await run();
    return { result, lines: [...out.mock.calls, ...err.mock.calls].flatMap(([text]) => parsed(text)) };
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}

/** The one line written for this answer, found by the id the answer carries. */
export function lineFor(lines: readonly RequestLine[], res: Response): RequestLine {
  const id = res.headers.get(REQUEST_ID_HEADER);
  expect(id).toBeTruthy();
  const mine = lines.filter((line) => line.id === id);
  expect(mine).toHaveLength(1);
  return mine[0] as RequestLine;
}
