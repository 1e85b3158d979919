// GitHub sign-in: the token endpoint (asked for JSON: its default is form-encoded), then the user endpoint.
// The subject is the numeric user id (stable across renames); a generic server's `sub` stands in for it locally.
import { z } from "zod";
import { OAuthError } from "./errors";
import { fetchJson } from "./http";
import type { OAuth2Provider } from "./providers";
import { type CodeRedemption, displayName, type ProviderProfile, requestToken } from "./token";

const GitHubUser = z.object({
  id: z.number().int().positive().optional(),
  sub: z.string().min(1).max(255).optional(),
  login: z.string().optional(),
  name: z.string().nullable().optional(),
});

export async function redeemGitHub(provider: OAuth2Provider, redemption: CodeRedemption): Promise<ProviderProfile> {
  // GitHub accepts client credentials only in the body.
  const tokens = await requestToken(provider.tokenUrl, provider, redemption, "post");
  const answer = await fetchJson(provider.userUrl, {
    headers: {
      accept: "application/vnd.github+json, application/json",
      authorization: `Bearer ${tokens.access_token}`,
      "user-agent": "oc-auth-host", // the GitHub API refuses requests without one
    },
  });
  if (answer.status !== 200) throw new OAuthError("oauth_provider_error", `user endpoint answered ${answer.status}`);
  const user = GitHubUser.safeParse(answer.body);
  const value = user.success ? (user.data.id !== undefined ? String(user.data.id) : user.data.sub) : undefined;
  if (!user.success || value === undefined) {
    throw new OAuthError("oauth_response_invalid", "user endpoint gave no user id");
  }
  return {
    identity: { kind: provider.identityKind, value },
    displayName: displayName(user.data.name, user.data.login),
  };
}
