// The library's grants of an account, ended together (issue 44, item 1): a merge revokes every grant the absorbed
// account holds, with their access and refresh tokens, in KV. D1 already refuses them (a merged account has no
// facts and no allowances), so a revocation cut short is logged, not answered as an error of a merge that happened.
import { errorFields } from "../../../../shared/http/request-line";
import { logEvent } from "../../../../shared/http/request-log";
import type { AuthBindings } from "../env";
import { oauthApi } from "./server";

/** Revokes every grant (and its tokens) the library holds for the account; returns how many it revoked. */
export async function revokeAccountGrants(env: AuthBindings, accountId: string): Promise<number> {
  const api = await oauthApi(env);
  let revoked = 0;
  try {
    let cursor: string | undefined;
    do {
      const page = await api.listUserGrants(accountId, { limit: 100, ...(cursor ? { cursor } : {}) });
      for (const grant of page.items) await api.revokeGrant(grant.id, accountId);
      revoked += page.items.length;
      cursor = page.cursor;
    } while (cursor);
    return revoked;
  } catch (err) {
    logEvent("auth", "oidc_grants_not_revoked", { ...errorFields(err), revoked }, "error");
    return revoked;
  }
}
