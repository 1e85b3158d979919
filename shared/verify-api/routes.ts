// The verification API's three routes as OpenAPI definitions, without handlers or middleware: the verify worker
// serves them (adding its rate limits and cache), and the auth host, which forwards them (DECISIONS 22), lists the
// same definitions in its own document, so the two descriptions cannot drift apart. All three are public reads that
// any origin may call from a browser (shared/http/public-cors.ts); each says so in its description.
import { createRoute } from "@hono/zod-openapi";
import { errorResponses, json, jsonRequest } from "../http/openapi";
import { PUBLIC_CORS_NOTE } from "../http/public-cors";
import {
  CheckQuery,
  CheckResult,
  DiscoverQuery,
  DiscoverResult,
  NotFoundResult,
  VerifyBody,
  VerifyResult,
} from "./schemas";

export const verifyRoute = createRoute({
  method: "post",
  path: "/api/verify",
  summary: "Verify a signed OC Attest attestation: canonical form, id, signature, network, policy and bond",
  description: PUBLIC_CORS_NOTE,
  request: { body: jsonRequest(VerifyBody) },
  responses: {
    200: json(VerifyResult, "The verifier ran; ok says whether the attestation holds, codes say why"),
    ...errorResponses("invalid_body", "malformed_json", "unsupported_media_type", "chain_unavailable", "rate_limited"),
  },
});

export const checkRoute = createRoute({
  method: "get",
  path: "/api/check",
  summary: "Check that a subject holds at least min_sats bonded for at least min_days",
  description: PUBLIC_CORS_NOTE,
  request: { query: CheckQuery },
  responses: {
    200: json(CheckResult, "The verifier ran: ok true, or ok false with reasons"),
    404: json(NotFoundResult, "No verified attestation names the subject"),
    ...errorResponses(
      "invalid_query",
      "chain_unavailable",
      "relays_unavailable",
      "relays_not_configured",
      "rate_limited",
    ),
  },
});

export const discoverRoute = createRoute({
  method: "get",
  path: "/api/discover",
  summary:
    "List the verified attestation envelopes published for an address, attestation id or identity (most recent first)",
  description: PUBLIC_CORS_NOTE,
  request: { query: DiscoverQuery },
  responses: {
    200: json(DiscoverResult, "count: envelopes returned (verified, at most limit); total: distinct envelopes sent"),
    ...errorResponses("invalid_query", "relays_unavailable", "relays_not_configured", "rate_limited"),
  },
});

/** Every route of the verification API, in the order the verify worker mounts them. */
export const VERIFY_API_ROUTES = [verifyRoute, checkRoute, discoverRoute] as const;
