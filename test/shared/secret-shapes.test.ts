// The log scan's detector (test/helpers/secret-shapes.ts): each secret shape it must catch is caught and masked in
// its report, and the request log's ordinary lines pass.
import { describe, expect, it } from "vitest";
import { findSecrets, knownSecrets } from "../helpers/secret-shapes";

const SIGNATURE =
  "AkcwRAIgM2gBAQqvZX15ZiysmKmQpDrG83avLIT492QBzLnQIxYCIBQTpOaD20qRNCXqB0Ud8L1WvMkRmGE5p7KfjRAAAAAAASECx/EgAxlkQpQ9hYjgGu6EBCPMVPwVIVJqO4XCsMvViHI=";

describe("findSecrets", () => {
  const shapes: [string, string][] = [
    ["API token", `{"note":"ock_${"0123456789abcdef".repeat(4)}"}`],
    ["webhook signing secret", `{"secret":"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"}`],
    ["JWT", `oc_session eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJhY2N0In0.c2lnbmF0dXJl`],
    ["email code", `{"email":"x","code":"123456"}`],
    ["long base64 (a signature)", `{"signature":"${SIGNATURE}"}`],
    ["email address", `mail to alice.smith@mail.example.org failed`],
    ["bearer credential", `authorization: Bearer abc`],
    ["cookie", `{"cookie":"x"}`],
  ];

  for (const [shape, line] of shapes) {
    it(`catches ${shape}, and masks it in the report`, () => {
      const findings = findSecrets([line]);
      expect(findings.map((f) => f.shape)).toContain(shape);
      expect(findings).toHaveLength(1);
    });
  }

  it("catches a secret binding's value, or a private JWK's d", () => {
    const known = knownSecrets({
      CRON_SECRET: "test-cron-secret",
      AUTH_SIGNING_KEY: JSON.stringify({ kty: "OKP", d: "private-part-of-the-key", x: "public" }),
      PUBLISHED_KEYS: "[public keys are not secret]",
    });
    expect(known).toEqual(["test-cron-secret", "private-part-of-the-key"]);
    const [finding] = findSecrets(["saw test-cron-secret here"], known);
    expect(finding?.line).toBe("saw <a secret binding's value> here");
    expect(findSecrets(['{"x":"public"}'], known)).toEqual([]);
  });

  it("passes the request log's own lines: ids, hashes, routes, reasons, times", () => {
    const lines = [
      JSON.stringify({
        t: "2026-05-01T12:00:00.000Z",
        id: "0b8f1c2e-3d4a-4b5c-8d6e-7f8091a2b3c4",
        worker: "auth",
        method: "POST",
        route: "/api/auth/email/verify",
        status: 400,
        reason: "email_code_invalid",
        ms: 123456,
        caller: "session",
        project: "proj_0123456789abcdef01234567",
      }),
      JSON.stringify({ t: "2026-05-01T12:00:00.000Z", worker: "fleet", event: "reconciled", leaves_hashed: 100000 }),
      `envelope ${"ab".repeat(32)} stored`,
    ];
    expect(findSecrets(lines)).toEqual([]);
  });
});
