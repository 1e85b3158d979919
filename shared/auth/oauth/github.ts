// GitHub sign-in after the code exchange: the user endpoint (GitHub issues no id_token). The subject is the numeric
// user id (stable across renames); a generic server's `sub` stands in for it locally. Hand-written where GitHub
// departs from RFC 6749: a refused code comes back as 200 with `{error}`, and its API wants a User-Agent.
import { protectedResourceRequest, type TokenEndpointResponse } from "oauth4webapi";
import { z } from "zod";
import { errorCode, OAuthError, providerStep } from "./errors";
import { displayName, MAX_SUBJECT_LENGTH, type ProviderProfile } from "./profile";
import type { OAuth2Provider } from "./providers";
import type { ProviderServer } from "./server";

const GitHubUser = z.object({
  id: z.number().int().positive().optional(),
  sub: z.string().min(1).max(MAX_SUBJECT_LENGTH).optional(),
  login: z.string().optional(),
  name: z.string().nullable().optional(),
});

/** GitHub's token endpoint answers a refused code with 200 `{error}`; refuse it as the provider's own refusal. */
export async function refusedWithOk(response: Response): Promise<void> {
  if (response.status !== 200) return;
  const body: unknown = await response
    .clone()
    .json()
    .catch(() => undefined);
  if (typeof body === "object" && body !== null && "error" in body) {
    throw new OAuthError("oauth_provider_error", `refused the request: ${errorCode(body.error)}`);
  }
}

export async function githubProfile(
  provider: OAuth2Provider,
  server: ProviderServer,
  tokens: TokenEndpointResponse,
): Promise<ProviderProfile> {
  const headers = new Headers({
    accept: "application/vnd.github+json, application/json",
    "user-agent": "oc-auth-host", // the GitHub API refuses requests without one
  });
  const user = await providerStep("user endpoint", async () => {
    const url = new URL(provider.userUrl);
    const res = await protectedResourceRequest(tokens.access_token, "GET", url, headers, null, server.options);
    if (res.status !== 200) throw new OAuthError("oauth_provider_error", `answered ${res.status}`);
    return GitHubUser.safeParse(await res.json().catch(() => undefined));
  });
  const value = user.success ? (user.data.id !== undefined ? String(user.data.id) : user.data.sub) : undefined;
  if (!user.success || value === undefined) {
    throw new OAuthError("oauth_response_invalid", "user endpoint gave no user id");
  }
  return {
    identity: { kind: provider.identityKind, value },
    displayName: displayName(user.data.name, user.data.login),
  };
}
