// Public family routes: statistics (cached a minute) and the same-origin contact-form relay (through the mail
// adapter; a filled hidden field is a bot: 403 honeypot).
import { createRoute, z } from "@hono/zod-openapi";
import { count, sql } from "drizzle-orm";
import { orm } from "../../../../shared/db/client";
import { registryShards } from "../../../../shared/db/registry-shards";
import { accountIdentities, accounts, envelopes, projects } from "../../../../shared/db/schema";
import { AppError, type Reason } from "../../../../shared/errors";
import { errorResponses, json, jsonRequest } from "../../../../shared/http/openapi";
import { sameOrigin } from "../../../../shared/http/same-origin";
import { sendMail } from "../../../../shared/mail/mailer";
import { rateLimit } from "../../../../shared/rate-limit/middleware";
import { AUTH_RULE, READ_RULE } from "../../../../shared/rate-limit/rules";
import { jsonBody, routeGroup } from "../../../../shared/validate";
import type { AuthEnv } from "../env";

export const familyRoutes = routeGroup<AuthEnv>();

/** Contact-form topics and field limits (service-spec leaves them open; these are documented in the OpenAPI). */
export const CONTACT_TOPICS = ["general", "sales", "support", "security", "press", "partnership"] as const;
export const CONTACT_LIMITS = { name: 100, company: 100, message: 5000, email: 254 } as const;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

familyRoutes.openapi(
  createRoute({
    method: "get",
    path: "/api/family-stats",
    summary: "Public statistics across the family's services (cached 60 s)",
    middleware: [rateLimit({ bucket: "family-stats", rule: READ_RULE, failClosed: false })],
    responses: {
      200: json(
        z.object({
          ok: z.literal(true),
          accounts: z.number().int(),
          identities: z.record(z.string(), z.number().int()),
          projects: z.number().int(),
          envelopes: z.record(z.string(), z.number().int()),
          generated_at: z.string(),
        }),
        "Counts",
      ),
    },
  }),
  async (c) => {
    // Accounts from the auth host's database; projects and envelopes summed over the registry's shards (one by
    // default, REGISTRY_DB: the same database as DB unless the deployment gave the registry its own).
    const db = orm(c.env.DB);
    const [[accountCount, identityRows], registries] = await Promise.all([
      db.batch([
        db.select({ n: count() }).from(accounts),
        db
          .select({
            kind: sql<string>`case when ${accountIdentities.kind} like 'connect:%' then 'connect' when ${accountIdentities.kind} like 'oidc:%' then 'oidc' else ${accountIdentities.kind} end`,
            n: count(),
          })
          .from(accountIdentities)
          .groupBy(sql`1`),
      ]),
      Promise.all(
        registryShards(c.env, "REGISTRY_DB").map(({ db: shard }) => {
          const registry = orm(shard);
          return registry.batch([
            registry.select({ n: count() }).from(projects),
            registry.select({ kind: envelopes.kind, n: count() }).from(envelopes).groupBy(envelopes.kind),
          ]);
        }),
      ),
    ]);
    const envelopeCounts: Record<string, number> = {};
    for (const [, rows] of registries) {
      for (const { kind, n } of rows) envelopeCounts[kind] = (envelopeCounts[kind] ?? 0) + n;
    }
    const projectCount = registries.reduce((sum, [[row]]) => sum + (row?.n ?? 0), 0);
    c.header("Cache-Control", "public, max-age=60");
    return c.json(
      {
        ok: true as const,
        accounts: accountCount[0]?.n ?? 0,
        identities: Object.fromEntries(identityRows.map((r) => [r.kind, r.n])),
        projects: projectCount,
        envelopes: envelopeCounts,
        generated_at: new Date().toISOString(),
      },
      200,
    );
  },
);

const ContactBody = z
  .object({
    name: z.unknown(),
    email: z.unknown(),
    company: z.unknown().optional(),
    topic: z.unknown(),
    message: z.unknown(),
    website: z.unknown().optional(),
  })
  .openapi("ContactRequest", {
    description: `name ≤ ${CONTACT_LIMITS.name}, email, company ≤ ${CONTACT_LIMITS.company} (optional), topic one of ${CONTACT_TOPICS.join(", ")}, message ≤ ${CONTACT_LIMITS.message}; website is the hidden honeypot and must stay empty`,
  });

/** The field checks, each with its own reason (service-spec: bad_name, bad_email, bad_company, bad_topic, bad_message). */
export function checkContact(input: Record<string, unknown>): {
  name: string;
  email: string;
  company: string;
  topic: string;
  message: string;
} {
  const text = (value: unknown) => (typeof value === "string" ? value.trim() : undefined);
  const fail = (reason: Reason, detail: string): never => {
    throw new AppError(reason, { detail });
  };
  if (text(input.website)) fail("honeypot", "the hidden field must stay empty");
  const name = text(input.name);
  if (!name || name.length > CONTACT_LIMITS.name) fail("bad_name", `1-${CONTACT_LIMITS.name} characters`);
  const email = text(input.email);
  if (!email || email.length > CONTACT_LIMITS.email || !EMAIL.test(email)) fail("bad_email", "an email address");
  const company = input.company === undefined || input.company === null ? "" : text(input.company);
  if (company === undefined || company.length > CONTACT_LIMITS.company)
    fail("bad_company", `at most ${CONTACT_LIMITS.company} characters`);
  const topic = text(input.topic);
  if (!topic || !(CONTACT_TOPICS as readonly string[]).includes(topic))
    fail("bad_topic", `one of ${CONTACT_TOPICS.join(", ")}`);
  const message = text(input.message);
  if (!message || message.length > CONTACT_LIMITS.message)
    fail("bad_message", `1-${CONTACT_LIMITS.message} characters`);
  return {
    name: name as string,
    email: email as string,
    company: company as string,
    topic: topic as string,
    message: message as string,
  };
}

familyRoutes.openapi(
  createRoute({
    method: "post",
    path: "/api/contact",
    summary: "Relay the contact form to the team (same-origin only)",
    middleware: [rateLimit({ bucket: "contact", rule: AUTH_RULE, failClosed: true }), sameOrigin(), jsonBody],
    request: { body: jsonRequest(ContactBody) },
    responses: {
      200: json(z.object({ ok: z.literal(true) }), "Relayed"),
      ...errorResponses(
        "honeypot",
        "bad_name",
        "bad_email",
        "bad_company",
        "bad_topic",
        "bad_message",
        "cross_site_blocked",
        "mailer_not_configured",
        "mailer_error",
        "rate_limited",
      ),
    },
  }),
  async (c) => {
    const form = checkContact(c.req.valid("json") as Record<string, unknown>);
    if (!c.env.CONTACT_TO) throw new AppError("mailer_not_configured", { detail: "CONTACT_TO is not set" });
    await sendMail(c.env, {
      to: c.env.CONTACT_TO,
      replyTo: form.email,
      subject: `[contact/${form.topic}] ${form.name}${form.company ? ` (${form.company})` : ""}`,
      text: `${form.message}\n\n— ${form.name} <${form.email}>${form.company ? `, ${form.company}` : ""}`,
    });
    return c.json({ ok: true as const }, 200);
  },
);
