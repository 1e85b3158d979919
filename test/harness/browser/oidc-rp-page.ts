// A relying party's page, as a site would write it with oidc-client-ts (an OpenID Connect client for browsers,
// independent of oauth4webapi): "Sign in with Bitcoin" starts the code flow with PKCE; the callback finishes it
// (the library checks state, the ID token's issuer, audience and nonce, and reads userinfo) and shows the profile.
import { UserManager, WebStorageStateStore } from "oidc-client-ts";

const config = JSON.parse(document.body.dataset.config ?? "{}") as { authority: string; client_id: string };
const manager = new UserManager({
  authority: config.authority,
  client_id: config.client_id,
  redirect_uri: `${location.origin}/callback`,
  response_type: "code",
  scope: "openid profile bitcoin",
  loadUserInfo: true,
  // Keep amr, auth_time and iss in the profile: the test reads how the person signed in.
  filterProtocolClaims: false,
  userStore: new WebStorageStateStore({ store: window.sessionStorage }),
});

const out = document.getElementById("profile") as HTMLElement;
if (location.pathname === "/callback") {
  manager
    .signinRedirectCallback()
    .then((user) => {
      out.textContent = JSON.stringify(user.profile);
      out.dataset.done = "true";
    })
    .catch((err: unknown) => {
      out.textContent = `error: ${err instanceof Error ? err.message : String(err)}`;
      out.dataset.done = "error";
    });
}
document.getElementById("signin")?.addEventListener("click", () => void manager.signinRedirect());
