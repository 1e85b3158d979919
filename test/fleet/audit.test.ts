// The signed audit export: bytes as registered, replay order, the manifest's digest and Ed25519 signature, three
// formats, and the bundle list.
import { env } from "cloudflare:test";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { base64urlnopad } from "@scure/base";
import { describe, expect, it } from "vitest";
import { type AuditFormat, manifestBytes, splitBundle } from "../../shared/audit/bundle-format";
import { nextPageRows, PAGE_BYTES, PAGE_ROWS } from "../../workers/fleet/src/registry/export-stream";
import { FleetClient, ownerWithProject, signedIn } from "../helpers/fleet";
import { registryDb } from "../helpers/registry-db";

/** Seeds stored envelope rows as registration writes them (the bodies are opaque bytes here). */
async function seed(projectId: string, rows: [kind: string, body: string][]) {
  let n = 0;
  for (const [kind, body] of rows) {
    n += 1;
    await (await registryDb(projectId))
      .prepare("INSERT INTO envelopes (project_id, id, kind, body, created_at) VALUES (?, ?, ?, ?, ?)")
      .bind(projectId, n.toString(16).padStart(64, "0"), kind, body, Date.now())
      .run();
  }
}

async function verifyTrailer(text: string, format: AuditFormat) {
  const split = splitBundle(text, format);
  if (!split) throw new Error("no trailer");
  const { d: _d, ...publicJwk } = JSON.parse(env.FLEET_SIGNING_KEY as string);
  const key = await crypto.subtle.importKey("jwk", publicJwk, { name: "Ed25519" }, false, ["verify"]);
  const signatureOk = await crypto.subtle.verify(
    "Ed25519",
    key,
    base64urlnopad.decode(split.trailer.signature),
    manifestBytes(split.trailer.manifest),
  );
  const digestOk = bytesToHex(sha256(new TextEncoder().encode(split.body))) === split.trailer.manifest.sha256;
  return { ...split, signatureOk, digestOk };
}

describe("audit export", () => {
  it("streams every envelope byte for byte in replay order, closed by a signed manifest (ndjson)", async () => {
    const { owner, projectId } = await ownerWithProject();
    const odd = '{ "v":1, "kind":"agent-action",  "note":"spacing kept" }';
    await seed(projectId, [
      ["action", odd],
      ["revocation", '{"kind":"agent-revocation"}'],
      ["delegation", '{"kind":"agent-delegation","n":1}'],
      ["subdelegation", '{"kind":"agent-subdelegation"}'],
      ["abandonment", '{"kind":"pledge-abandonment"}'],
      ["pledge", '{"kind":"pledge"}'],
      ["outcome", '{"kind":"pledge-outcome"}'],
      ["delegation", '{"kind":"agent-delegation","n":2}'],
    ]);
    const res = await owner.fetch(`/api/audit/export?project_id=${projectId}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/x-ndjson; charset=utf-8");
    const text = await res.text();
    const lines = text.trim().split("\n");
    const kinds = lines.slice(0, -1).map((l) => (JSON.parse(l) as { kind: string }).kind);
    expect(kinds).toEqual([
      "delegation",
      "delegation",
      "subdelegation",
      "revocation",
      "action",
      "pledge",
      "outcome",
      "abandonment",
    ]);
    expect(text).toContain(`"envelope":${odd}}`);
    const checked = await verifyTrailer(text, "ndjson");
    expect(checked.signatureOk).toBe(true);
    expect(checked.digestOk).toBe(true);
    expect(checked.trailer.manifest).toMatchObject({
      project_id: projectId,
      total: 8,
      counts: { delegation: 2, subdelegation: 1, revocation: 1, action: 1, pledge: 1, outcome: 1, abandonment: 1 },
      alg: "EdDSA",
    });
    // A changed byte breaks the digest.
    expect((await verifyTrailer(text.replace("spacing kept", "spacing kepT"), "ndjson")).digestOk).toBe(false);
  });

  it("serves json and csv bundles that verify the same way, and lists completed bundles", async () => {
    const { owner, projectId } = await ownerWithProject();
    await seed(projectId, [["delegation", '{"a":"quote \\" and, comma"}']]);
    for (const format of ["json", "csv"] as const) {
      const text = await (await owner.fetch(`/api/audit/export?project_id=${projectId}&format=${format}`)).text();
      const checked = await verifyTrailer(text, format);
      expect(checked.signatureOk && checked.digestOk, format).toBe(true);
      if (format === "json") expect((JSON.parse(text) as { envelopes: unknown[] }).envelopes).toHaveLength(1);
    }
    const list = await owner.call<{ bundles: { format: string; counts: Record<string, number> }[] }>(
      "GET",
      `/api/audit/bundles?project_id=${projectId}`,
    );
    expect(list.body.bundles.map((b) => b.format).sort()).toEqual(["csv", "json"]);
    expect(list.body.bundles[0]?.counts.delegation).toBe(1);
  });

  it("keeps a pretty-printed envelope on one ndjson line (same JSON value) and byte for byte in json and csv", async () => {
    const { owner, projectId } = await ownerWithProject();
    const pretty = '{\r\n  "v": 1,\n  "kind": "agent-delegation",\n  "note": "two\\nlines"\n}';
    await seed(projectId, [["delegation", pretty]]);
    const ndjson = await (await owner.fetch(`/api/audit/export?project_id=${projectId}&format=ndjson`)).text();
    const checked = await verifyTrailer(ndjson, "ndjson");
    expect(checked.signatureOk && checked.digestOk).toBe(true);
    const lines = checked.body.split("\n").filter(Boolean);
    expect(lines).toHaveLength(1);
    const row = JSON.parse(lines[0] as string) as { envelope: unknown };
    expect(row.envelope).toEqual(JSON.parse(pretty));
    const json = await (await owner.fetch(`/api/audit/export?project_id=${projectId}&format=json`)).text();
    expect(json.includes(pretty)).toBe(true);
    const csv = await (await owner.fetch(`/api/audit/export?project_id=${projectId}&format=csv`)).text();
    expect(csv.includes(pretty.replaceAll('"', '""'))).toBe(true);
  });

  it("pages through a large project in bounded steps and counts every envelope", async () => {
    const { owner, projectId } = await ownerWithProject();
    const stmt = (await registryDb(projectId)).prepare(
      "INSERT INTO envelopes (project_id, id, kind, body, created_at) VALUES (?, ?, 'action', ?, 0)",
    );
    const batch = Array.from({ length: 1000 }, (_, i) =>
      stmt.bind(projectId, i.toString(16).padStart(64, "0"), `{"i":${i}}`),
    );
    await (await registryDb(projectId)).batch(batch);
    const text = await (await owner.fetch(`/api/audit/export?project_id=${projectId}`)).text();
    const checked = await verifyTrailer(text, "ndjson");
    expect(checked.trailer.manifest.total).toBe(1000);
    expect(checked.digestOk && checked.signatureOk).toBe(true);
  });

  it("an empty project still gives a well-formed, signed bundle in every format", async () => {
    const { owner, projectId } = await ownerWithProject();
    for (const format of ["ndjson", "json", "csv"] as const) {
      const text = await (await owner.fetch(`/api/audit/export?project_id=${projectId}&format=${format}`)).text();
      const checked = await verifyTrailer(text, format);
      expect(checked.trailer.manifest.total, format).toBe(0);
      expect(checked.digestOk && checked.signatureOk, format).toBe(true);
    }
    const json = await (await owner.fetch(`/api/audit/export?project_id=${projectId}&format=json`)).text();
    expect(JSON.parse(json).envelopes).toEqual([]);
  });

  it("sizes pages by bytes: many small rows per query, few large ones, always within bounds", () => {
    expect(nextPageRows(0, 0)).toBe(PAGE_ROWS.first);
    expect(nextPageRows(200, 200 * 100)).toBe(PAGE_ROWS.max); // 100-byte rows
    expect(nextPageRows(200, 200 * 4_000)).toBe(Math.floor(PAGE_BYTES / 4_000)); // 4 KB rows
    expect(nextPageRows(20, 20 * 60_000)).toBe(PAGE_ROWS.min); // near the body limit
  });

  it("is visible only to the project's members; another tenant gets 404", async () => {
    const { projectId } = await ownerWithProject();
    const stranger = await signedIn();
    expect((await stranger.call("GET", `/api/audit/export?project_id=${projectId}`)).status).toBe(404);
    expect((await new FleetClient().call("GET", `/api/audit/export?project_id=${projectId}`)).status).toBe(401);
    expect((await stranger.call("GET", `/api/audit/export?project_id=${projectId}&format=xml`)).body.reason).toBe(
      "invalid_query",
    );
  });
});
