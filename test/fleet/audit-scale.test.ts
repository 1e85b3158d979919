// The audit export of a project with 100,000 envelopes: it completes, counts every envelope, and arrives in
// page-sized pieces (the stream never holds more than one D1 page of rows).
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { splitBundle } from "../../shared/audit/bundle-format";
import { ownerWithProject } from "../helpers/fleet";
import { registryDb } from "../helpers/registry-db";

const TOTAL = 100_000;

describe("audit export at scale", () => {
  it("streams 100,000 envelopes in bounded pieces", async () => {
    const { owner, projectId } = await ownerWithProject();
    const stmt = (await registryDb(projectId)).prepare(
      "INSERT INTO envelopes (project_id, id, kind, body, created_at) VALUES (?, ?, 'action', ?, 0)",
    );
    for (let start = 0; start < TOTAL; start += 2000) {
      const batch = Array.from({ length: 2000 }, (_, i) =>
        stmt.bind(projectId, (start + i).toString(16).padStart(64, "0"), `{"n":${start + i}}`),
      );
      await (await registryDb(projectId)).batch(batch);
    }
    const res = await owner.fetch(`/api/audit/export?project_id=${projectId}`);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = "";
    let largest = 0;
    let pieces = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      pieces += 1;
      largest = Math.max(largest, value.byteLength);
      text += decoder.decode(value, { stream: true });
    }
    const split = splitBundle(text, "ndjson");
    expect(split?.trailer.manifest.total).toBe(TOTAL);
    // Rows are enqueued page by page as they are read (the runtime may coalesce them into a few KiB): the body
    // arrives as thousands of small pieces, never as one buffer of the whole export (about 10 MB here).
    expect(largest).toBeLessThanOrEqual(64 * 1024);
    expect(pieces).toBeGreaterThan(1000);
  }, 120_000);
});
