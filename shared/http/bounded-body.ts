// A request body read no further than a limit: one without Content-Length (chunked on the wire) is counted while it
// streams and cut at the limit, so an oversized body is refused before it is held whole.

/** The body's length as its headers declare it: Content-Length when no Transfer-Encoding stands beside it, else null. */
export function declaredLength(headers: Headers): number | null {
  const length = headers.get("content-length");
  if (length === null || headers.has("transfer-encoding")) return null;
  return /^\d+$/.test(length) ? Number(length) : null;
}

/** The body's bytes, or null once it passes `maxSize` (the rest is cancelled, never read). */
export async function readWithin(body: ReadableStream<Uint8Array>, maxSize: number): Promise<Uint8Array | null> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxSize) {
      await reader.cancel().catch(() => undefined);
      return null;
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/** Whether the body is past `maxSize`: by its declared length when there is one, else counted (and so consumed). */
export async function bodyTooLarge(request: Request, maxSize: number): Promise<boolean> {
  if (request.body === null) return false;
  const declared = declaredLength(request.headers);
  if (declared !== null) return declared > maxSize;
  return (await readWithin(request.body, maxSize)) === null;
}
