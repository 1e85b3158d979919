// Project roles (DECISIONS 12) and what an API token may do: a token acts as its creator, an owner, but only up to
// the scope chosen at creation. Tokens go through the same role check as sessions (access.ts): a scope is a ceiling.

export const ROLES = ["viewer", "member", "admin", "owner"] as const;
export type Role = (typeof ROLES)[number];

export const TOKEN_SCOPES = ["owner", "register", "read"] as const;
export type TokenScope = (typeof TOKEN_SCOPES)[number];

/** The role a token of this scope holds in its project. */
export function scopeRole(scope: TokenScope): Role {
  switch (scope) {
    case "owner":
      return "owner";
    case "register":
      return "member";
    case "read":
      return "viewer";
  }
}

/** A stored scope; anything unknown reads as the narrowest, so a bad row can never widen a token. */
export function storedScope(value: string): TokenScope {
  return TOKEN_SCOPES.find((s) => s === value) ?? "read";
}
