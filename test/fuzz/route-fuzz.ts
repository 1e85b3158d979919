// Route fuzzing inside workerd: the routes with a JSON body are read from the worker's own OpenAPI description (so a
// new route is fuzzed without a test change), bodies are drawn from each route's JSON Schema and then broken (wrong
// types, unknown fields, huge strings, arbitrary JSON, malformed bytes, wrong media type), and every answer is
// checked: never 5xx, a refusal is the error envelope with a reason of the table at its status, and a refused write
// stores nothing (no D1 table grows).
import { env, SELF } from "cloudflare:test";
import fc from "fast-check";
import { expect } from "vitest";
import { REASONS, type Reason } from "../../shared/errors";
import { anyText, junkJson, mutated, spliced } from "./arbitraries";

type Schema = {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  enum?: unknown[];
  const?: unknown;
  pattern?: string;
  format?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  nullable?: boolean;
};

export interface BodyRoute {
  method: string;
  /** OpenAPI path, `{param}` placeholders included. */
  path: string;
  schema: Schema;
}

interface OpenApiDocument {
  paths: Record<string, Record<string, { requestBody?: { content?: Record<string, { schema?: Schema }> } }>>;
  components?: { schemas?: Record<string, Schema> };
}

/** The operations of `origin`'s /api/openapi that take a JSON body, with their schema's $refs resolved. */
export async function bodyRoutes(origin: string): Promise<BodyRoute[]> {
  const res = await SELF.fetch(`${origin}/api/openapi`);
  const doc = (await res.json()) as OpenApiDocument;
  const components = doc.components?.schemas ?? {};
  const resolve = (schema: Schema, depth = 0): Schema => {
    if (depth > 20) return {};
    if (schema.$ref) return resolve(components[schema.$ref.split("/").pop() as string] ?? {}, depth + 1);
    const out: Schema = { ...schema };
    if (schema.properties) {
      out.properties = Object.fromEntries(
        Object.entries(schema.properties).map(([k, s]) => [k, resolve(s, depth + 1)]),
      );
    }
    if (schema.items) out.items = resolve(schema.items, depth + 1);
    for (const key of ["anyOf", "oneOf", "allOf"] as const) {
      if (schema[key]) out[key] = schema[key]?.map((s) => resolve(s, depth + 1));
    }
    return out;
  };
  const routes: BodyRoute[] = [];
  for (const [path, operations] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const schema = operation.requestBody?.content?.["application/json"]?.schema;
      if (schema) routes.push({ method: method.toUpperCase(), path, schema: resolve(schema) });
    }
  }
  return routes;
}

export type Overrides = Record<string, fc.Arbitrary<unknown>>;

/** A value the schema describes (property generators in `overrides` win, by property name). */
export function fromSchema(schema: Schema, overrides: Overrides = {}, depth = 0): fc.Arbitrary<unknown> {
  const branches = schema.anyOf ?? schema.oneOf;
  if (branches?.length) return fc.oneof(...branches.map((s) => fromSchema(s, overrides, depth + 1)));
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== "null") : schema.type;
  switch (type) {
    case "string": {
      if (schema.pattern) return fc.stringMatching(new RegExp(schema.pattern)).map((s) => s.slice(0, schema.maxLength));
      if (schema.format === "email") return fc.emailAddress();
      if (schema.format === "date-time") return fc.date({ noInvalidDate: true }).map((d) => d.toISOString());
      return fc.string({ minLength: schema.minLength ?? 0, maxLength: Math.min(schema.maxLength ?? 40, 40) });
    }
    case "integer":
      return fc.integer({ min: schema.minimum ?? -1000, max: schema.maximum ?? 1_000_000 });
    case "number":
      return fc.double({ noNaN: true, noDefaultInfinity: true });
    case "boolean":
      return fc.boolean();
    case "array":
      return depth > 4
        ? fc.constant([])
        : fc.array(fromSchema(schema.items ?? {}, overrides, depth + 1), { maxLength: 3 });
    case "object": {
      if (!schema.properties) return fc.dictionary(fc.string({ maxLength: 8 }), junkJson, { maxKeys: 3 });
      const shape = Object.fromEntries(
        Object.entries(schema.properties).map(([key, s]) => [
          key,
          overrides[key] ?? fromSchema(s, overrides, depth + 1),
        ]),
      );
      return fc.record(shape, { requiredKeys: schema.required ?? [] });
    }
    default:
      return junkJson;
  }
}

/** A request body: text and the Content-Type it is sent with. */
export interface FuzzBody {
  text: string;
  contentType: string;
}

const json = (text: string): FuzzBody => ({ text, contentType: "application/json" });

/** Bodies for one route: schema-made (often valid), one field broken, arbitrary JSON, huge, malformed, wrong type. */
export function bodies(schema: Schema, overrides: Overrides = {}): fc.Arbitrary<FuzzBody> {
  const valid = fromSchema(schema, overrides);
  const validText = valid.map((v) => JSON.stringify(v));
  return fc.oneof(
    { weight: 3, arbitrary: validText.map(json) },
    { weight: 4, arbitrary: mutated(valid).map((v) => json(JSON.stringify(v))) },
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => json(JSON.stringify(v))) },
    // Near the 64 KiB cap and over it.
    {
      weight: 1,
      arbitrary: fc
        .tuple(valid, fc.constantFrom(20_000, 66_000), fc.string({ maxLength: 10 }))
        .map(([v, size, key]) =>
          json(JSON.stringify(typeof v === "object" && v !== null ? { ...v, [key]: "\u00e9".repeat(size) } : v)),
        ),
    },
    {
      weight: 2,
      arbitrary: fc.oneof(spliced(validText), anyText, fc.constantFrom("", "{", "[1,]", "\u0000")).map(json),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(validText, fc.constantFrom("text/plain", "application/x-www-form-urlencoded", "", "application/jsonx"))
        .map(([text, contentType]) => ({ text, contentType })),
    },
    // Deep nesting: a stack-exhausting body must be a refusal, not a crash.
    {
      weight: 1,
      arbitrary: fc.integer({ min: 1000, max: 20_000 }).map((n) => json(`${"[".repeat(n)}${"]".repeat(n)}`)),
    },
  );
}

/** The table's 503 reasons: a setting or binding this deployment lacks. */
const CONFIG_REASONS = (Object.keys(REASONS) as Reason[]).filter(
  (r) => REASONS[r] === 503 && r !== "dependency_unavailable",
);

let ipCounter = 0;
/** A client address no other request of the run uses (per-IP rate limits never turn a run into a 429 test). */
export function fuzzIp(): string {
  ipCounter += 1;
  return `203.0.${Math.floor(ipCounter / 250) % 250}.${(ipCounter % 250) + 1}`;
}

/**
 * Filled in the background (waitUntil) from outbox rows a 201 wrote, so they may land during a later request; the
 * outbox rows they come from are counted.
 */
const BACKGROUND_TABLES = ["webhook_deliveries"];

/** Row count of every application table of the worker's D1 (undefined when the worker has none). */
export async function rowCounts(): Promise<Record<string, number> | undefined> {
  const db = (env as { DB?: D1Database }).DB;
  if (!db) return undefined;
  const { results } = await db
    .prepare(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' AND name NOT LIKE 'd1_%'",
    )
    .all<{ name: string }>();
  const tables = results.filter((r) => !BACKGROUND_TABLES.includes(r.name));
  if (tables.length === 0) return {};
  const select = tables.map((r) => `(SELECT count(*) FROM "${r.name}") AS "${r.name}"`).join(", ");
  return (await db.prepare(`SELECT ${select}`).first<Record<string, number>>()) ?? {};
}

/** Sends one fuzzed body and checks the answer; refused writes must leave every table's row count as it was. */
export async function sendAndCheck(
  origin: string,
  route: { method: string; path: string },
  body: FuzzBody,
  headers: Record<string, string>,
): Promise<{ status: number; setCookie: string | null }> {
  const before = await rowCounts();
  const res = await SELF.fetch(`${origin}${route.path}`, {
    method: route.method,
    headers: {
      ...headers,
      "cf-connecting-ip": fuzzIp(),
      ...(body.contentType && { "content-type": body.contentType }),
    },
    body: body.text,
    redirect: "manual",
  });
  const text = await res.text();
  const where = `${route.method} ${route.path} ${JSON.stringify(body.text.slice(0, 300))} → ${res.status} ${text.slice(0, 300)}`;
  const after = await rowCounts();
  // 503 with a configuration reason (`*_not_configured`, `*_unset`, …) is the documented answer of a service
  // without that setting, not a failure; any other 5xx is.
  if (!(res.status === 503 && CONFIG_REASONS.some((r) => text.includes(`"reason":"${r}"`)))) {
    expect(res.status, where).toBeLessThan(500);
  }
  if (res.status >= 400) {
    expect(res.headers.get("content-type") ?? "", where).toMatch(/^application\/json/);
    const answer = JSON.parse(text) as { ok?: unknown; reason?: unknown; detail?: unknown };
    expect(answer.ok, where).toBe(false);
    expect(Object.keys(REASONS), where).toContain(answer.reason);
    expect(REASONS[answer.reason as Reason], where).toBe(res.status);
    if (answer.detail !== undefined) expect(typeof answer.detail, where).toBe("string");
    for (const [table, count] of Object.entries(after ?? {})) {
      expect(count, `${where}: ${table} grew`).toBeLessThanOrEqual(before?.[table] ?? 0);
    }
  }
  return { status: res.status, setCookie: res.headers.get("set-cookie") };
}

/** Fills `{param}` placeholders of an OpenAPI path. */
export function fillPath(path: string, value: (param: string) => string): string {
  return path.replace(/\{(\w+)\}/g, (_, param: string) => encodeURIComponent(value(param)));
}
