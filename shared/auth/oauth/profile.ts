// Who signed in, as a provider's answer comes down to it: the subject the account tables store and a display name.

export interface ProviderProfile {
  identity: { kind: string; value: string };
  displayName: string | null;
}

/** Longest subject stored (account_identities.value); OIDC Core allows 255 ASCII characters. */
export const MAX_SUBJECT_LENGTH = 255;

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed.
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]+/g;

/** A provider-given name as a display name: one line, at most 64 characters (the account PATCH rule), or null. */
export function displayName(...candidates: unknown[]): string | null {
  for (const candidate of candidates) {
    if (typeof candidate !== "string") continue;
    const clean = candidate.replace(CONTROL_CHARACTERS, " ").replace(/\s+/g, " ").trim();
    if (clean) return [...clean].slice(0, 64).join("");
  }
  return null;
}
