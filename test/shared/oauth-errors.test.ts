// The one mapping of provider-step failures to the two reasons: each failure class and code of the protocol
// library lands on "the provider failed or refused" or "its answer failed our checks", never on a 500.
import * as oauth from "oauth4webapi";
import { describe, expect, it } from "vitest";
import { OAuthError, providerStep, toOAuthError } from "../../shared/auth/oauth/errors";

function processing(code: string): Error {
  return new oauth.OperationProcessingError("the library's message", { code });
}

describe("toOAuthError", () => {
  it.each([
    [oauth.RESPONSE_IS_NOT_CONFORM, "oauth_provider_error"],
    [oauth.RESPONSE_IS_NOT_JSON, "oauth_provider_error"],
    [oauth.PARSE_ERROR, "oauth_provider_error"],
    [oauth.JSON_ATTRIBUTE_COMPARISON, "oauth_provider_error"],
    [oauth.HTTP_REQUEST_FORBIDDEN, "oauth_provider_error"],
    [oauth.MISSING_SERVER_METADATA, "oauth_provider_error"],
    [oauth.INVALID_RESPONSE, "oauth_response_invalid"],
    [oauth.JWT_CLAIM_COMPARISON, "oauth_response_invalid"],
    [oauth.JWT_TIMESTAMP_CHECK, "oauth_response_invalid"],
    [oauth.KEY_SELECTION, "oauth_response_invalid"],
  ])("maps %s to %s, naming the step", (code, reason) => {
    const mapped = toOAuthError(processing(code), "token endpoint");
    expect(mapped).toMatchObject({ reason, message: "token endpoint: the library's message" });
  });

  it("echoes a provider's error code only when it is a plain short token", () => {
    const refused = (error: string) =>
      new oauth.ResponseBodyError("m", { cause: { error }, response: new Response(null, { status: 400 }) });
    expect(toOAuthError(refused("invalid_grant"), "token endpoint")).toMatchObject({
      reason: "oauth_provider_error",
      message: "token endpoint refused the request: invalid_grant",
    });
    expect(toOAuthError(refused('<script>"x"</script>'), "token endpoint").message).toMatch(/: unknown$/);
    const declined = new oauth.AuthorizationResponseError("m", {
      cause: new URLSearchParams({ error: "access_denied" }),
    });
    expect(toOAuthError(declined, "callback")).toMatchObject({
      reason: "oauth_provider_error",
      message: "the provider answered access_denied",
    });
  });

  it("refuses what the library does not support (an HMAC id_token, an implicit-flow callback) as an invalid answer", () => {
    expect(toOAuthError(new oauth.UnsupportedOperationError("unsupported JWS algorithm"), "id_token").reason).toBe(
      "oauth_response_invalid",
    );
  });

  it("keeps its own failures' reasons and answers anything else as the provider's failure, without its text", () => {
    expect(toOAuthError(new OAuthError("oauth_provider_error", "idp.example timed out"), "discovery")).toMatchObject({
      reason: "oauth_provider_error",
      message: "discovery: idp.example timed out",
    });
    const odd = toOAuthError(new TypeError("Invalid URL: javascript:alert(1)"), "discovery");
    expect(odd).toMatchObject({ reason: "oauth_provider_error", message: "discovery failed (TypeError)" });
    expect(toOAuthError(processing("OAUTH_SOMETHING_NEW"), "x").reason).toBe("oauth_provider_error");
  });

  it("providerStep rethrows as an OAuthError and passes results through", async () => {
    await expect(providerStep("callback", () => 42)).resolves.toBe(42);
    await expect(
      providerStep("callback", () => {
        throw processing(oauth.INVALID_RESPONSE);
      }),
    ).rejects.toBeInstanceOf(OAuthError);
  });
});
