// The data download's published schema (docs/account-export.schema.json, described in docs/account-export.md) is
// exactly the one the code and the tests use (shared/db/account-export-schema.ts), and a JSON Schema validator that
// knows nothing of zod accepts a document of that shape and refuses one with a field the schema does not name.
// Runs in Node: ajv compiles schemas to code at runtime, which workerd forbids.
import { readFileSync } from "node:fs";
import path from "node:path";
import Ajv2020 from "ajv/dist/2020";
import { describe, expect, it } from "vitest";
import { accountExportJsonSchema, EXPORT_FORMAT } from "../../shared/db/account-export-schema";

const root = path.join(import.meta.dirname, "../..");
const published = JSON.parse(readFileSync(path.join(root, "docs/account-export.schema.json"), "utf8"));
const T = "2026-01-01T00:00:00.000Z";

const sample = () => ({
  format: EXPORT_FORMAT,
  generated_at: T,
  account: {
    did_oc: "did:oc:00",
    display_name: null,
    primary_btc: null,
    display_identity_kind: "did",
    recovery_email: null,
    recovery_set_at: null,
    merged_from: [],
    created_at: T,
    updated_at: T,
    deletion_requested_at: null,
    deletion_due_at: null,
  },
  identities: [{ kind: "email", value: "a@example.com", created_at: T }],
  passkeys: [],
  sessions: [],
  known_devices: [],
  mail_settings: null,
  account_log: [],
  oidc_apps: [],
  oidc_consents: [],
  connect_apps: [],
  connect_links: [],
  fleet_memberships: [],
});

describe("the data download's schema", () => {
  it("is published exactly as the code has it", () => {
    expect(published).toEqual(JSON.parse(JSON.stringify(accountExportJsonSchema())));
  });

  it("accepts a document of its shape and refuses an unknown field", () => {
    const validate = new Ajv2020({ strict: false }).compile(published);
    expect(validate(sample()), JSON.stringify(validate.errors)).toBe(true);
    const extra = sample();
    (extra.account as Record<string, unknown>).token_hash = "x";
    expect(validate(extra)).toBe(false);
  });
});
