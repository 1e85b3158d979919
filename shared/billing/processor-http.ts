// One outbound call to a payment processor: a time limit, and the two ways it can fail kept apart — the processor
// could not be reached (`unreachable`), or it answered an error (`status` and its message). Secrets never leave here.

export const PROCESSOR_TIMEOUT_MS = 10_000;
/** Longest processor message passed on in an error detail. */
const MAX_DETAIL = 200;

export type ProcessorAnswer =
  | { kind: "ok"; body: Record<string, unknown> }
  | { kind: "error"; status: number; message: string }
  | { kind: "unreachable"; message: string };

export async function callProcessor(url: string, init: RequestInit): Promise<ProcessorAnswer> {
  let res: Response;
  try {
    res = await fetch(url, { ...init, redirect: "manual", signal: AbortSignal.timeout(PROCESSOR_TIMEOUT_MS) });
  } catch (err) {
    return {
      kind: "unreachable",
      message: err instanceof Error && err.name === "TimeoutError" ? "timed out" : "unreachable",
    };
  }
  const text = await res.text().catch(() => "");
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (!res.ok || typeof body !== "object" || body === null || Array.isArray(body)) {
    return { kind: "error", status: res.status, message: errorMessage(body, res.status) };
  }
  return { kind: "ok", body: body as Record<string, unknown> };
}

/** Stripe puts it at error.message, BTCPay at message (or a list of field errors). */
function errorMessage(body: unknown, status: number): string {
  const record = (typeof body === "object" && body !== null ? body : {}) as Record<string, unknown>;
  const nested = record.error as Record<string, unknown> | undefined;
  const message =
    (typeof nested?.message === "string" && nested.message) ||
    (typeof record.message === "string" && record.message) ||
    `HTTP ${status}`;
  // One line, bounded: the processor's words are reflected to the caller.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is being removed.
  return message.replace(/[\u0000-\u001f\u007f]+/g, " ").slice(0, MAX_DETAIL);
}

export function stringField(body: Record<string, unknown>, key: string): string | undefined {
  const value = body[key];
  return typeof value === "string" && value.length > 0 ? value : undefined;
}
