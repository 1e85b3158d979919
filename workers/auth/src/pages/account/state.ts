// What the account page knows of the active account, loaded from this host's API and reloaded after each change:
// the account and this browser's roster, its identities, its security keys and its recovery address.

import { api } from "../shared/api";
import type { Key } from "../shared/webauthn-client";
import type { Account } from "../signin/accounts";

export interface Identity {
  kind: string;
  value: string;
  created_at: string;
  primary: boolean;
}

export interface Recovery {
  email: string;
  set_at: string;
}

export const state = {
  account: undefined as Account | undefined,
  roster: [] as Account[],
  identities: [] as Identity[],
  keys: [] as Key[],
  recovery: null as Recovery | null,
};

/** Loads everything; false when nobody is signed in (the page then says so). */
export async function load(): Promise<boolean> {
  const me = await api<{ account: Account; roster: Account[] }>("GET", "/api/auth/me");
  if (!me.ok) {
    state.account = undefined;
    return false;
  }
  const [identities, keys, recovery] = await Promise.all([
    api<{ identities: Identity[] }>("GET", "/api/auth/identities"),
    api<{ keys: Key[] }>("GET", "/api/auth/webauthn/credentials"),
    api<{ recovery: Recovery | null }>("GET", "/api/auth/recovery"),
  ]);
  state.account = me.body.account;
  state.roster = me.body.roster;
  state.identities = identities.ok ? identities.body.identities : [];
  state.keys = keys.ok ? keys.body.keys : [];
  state.recovery = recovery.ok ? recovery.body.recovery : null;
  return true;
}

/** A time as a person reads it: the date and the minute, UTC. */
export const when = (iso: string | null): string => (iso ? `${iso.replace("T", " ").slice(0, 16)} UTC` : "never");
