// The deploy's witness list (issue 48; docs/log.md "Witnesses"): deploy.config.json's `log_witnesses` becomes the
// fleet's LOG_WITNESSES variable as JSON, only on the fleet and only when there are any; a malformed entry is the
// configuration's error, named by its path, before anything is deployed.
import { describe, expect, it } from "vitest";
import { DeployConfig, describeIssues } from "../../scripts/deploy/config.mjs";
import { workerConfig } from "../../scripts/deploy/plan.mjs";

const BASE = {
  environments: { production: { auth_host: "auth.example.com", fleet_host: "fleet.example.com" } },
  verify: { nostr_relays: ["wss://a.example"] },
};
const VKEY = "witness.example/w1+0123abcd+BH1Za9D9rkh2lI11FFUo4jE1gvTcEmKsDqcUWSc6aP7Y";
const ids = { database: "db-id", namespace: "kv-id" };
const vars = (worker: string, json: unknown) =>
  (
    workerConfig(worker, { config: DeployConfig.parse(json), env: "production", ids }) as {
      vars: Record<string, string>;
    }
  ).vars;

describe("log_witnesses", () => {
  it("becomes the fleet's LOG_WITNESSES (JSON), and nothing without witnesses", () => {
    const list = [{ vkey: VKEY, url: "https://witness.example/w1" }];
    expect(JSON.parse(vars("fleet", { ...BASE, log_witnesses: list }).LOG_WITNESSES as string)).toEqual(list);
    expect(vars("auth", { ...BASE, log_witnesses: list })).not.toHaveProperty("LOG_WITNESSES");
    expect(vars("fleet", BASE)).not.toHaveProperty("LOG_WITNESSES");
  });

  it("refuses a malformed vkey, a plain-http URL or an unknown field, naming the setting", () => {
    const problems = (entry: unknown) => {
      const parsed = DeployConfig.safeParse({ ...BASE, log_witnesses: [entry] });
      return parsed.success ? [] : describeIssues(parsed.error);
    };
    expect(problems({ vkey: "not a vkey", url: "https://w.example" })[0]).toMatch(/^log_witnesses\.0\.vkey: /);
    expect(problems({ vkey: VKEY, url: "http://w.example" })[0]).toMatch(/^log_witnesses\.0\.url: /);
    expect(problems({ vkey: VKEY, url: "https://w.example", name: "x" })[0]).toMatch(/^log_witnesses\.0: /);
  });
});
