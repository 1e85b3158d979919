// The OpenID provider's pages (issue 33): the consent page an app's sign-in lands on, and the page that says why an
// authorization request was refused when it cannot be sent back to the app. Markup through hono/html (every value
// escaped, the app's name and logo included: they are the app owner's words); no script.
import { html, raw } from "hono/html";
import type { OidcScope } from "../oidc/claims";

const STYLE = `
body { font: 15px/1.5 system-ui, sans-serif; max-width: 32rem; margin: 2rem auto; padding: 0 1rem; color: #1d1d1f; }
h1 { font-size: 1.4rem; margin: .5rem 0; } .app { display: flex; gap: .8rem; align-items: center; }
.app img { width: 48px; height: 48px; border-radius: 8px; object-fit: contain; }
section { border: 1px solid #ddd; border-radius: 8px; padding: 1rem; margin: 1rem 0; }
ul { padding-left: 1.2rem; } .meta { color: #666; font-size: 13px; } .warn { color: #8a4b00; }
button { padding: .45rem .9rem; margin: .2rem .4rem .2rem 0; border: 1px solid #f7931a; background: #f7931a;
  color: #1d1d1f; border-radius: 6px; cursor: pointer; font: inherit; }
button.secondary { background: #fff; color: #1d1d1f; border-color: #999; }
p, li, code, h1 { overflow-wrap: anywhere; }
`;

const SCOPE_SENTENCES: Record<OidcScope, string> = {
  openid: "Know which account you are (an identifier for this account that stays the same)",
  profile: "See your display name",
  email: "See your email address (one you proved you receive mail at)",
  bitcoin: "See your primary Bitcoin address (one you proved you hold by signing)",
  offline_access: "Stay signed in when you are away (refresh its access without asking you)",
};

export interface ConsentView {
  appName: string;
  logoUri: string | null;
  redirectHost: string;
  redirectIsLoopback: boolean;
  scopes: OidcScope[];
  account: string;
  /** The account's did_oc: the form names it, so an answer for another account than the page showed is refused. */
  accountDid: string;
  /** The consent transaction's handle; the request (its nonce included) stays server-side under it. */
  handle: string;
  switchUrl: string;
}

function page(title: string, body: unknown) {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<style>${raw(STYLE)}</style>
</head>
<body>
${body}
</body>
</html>`;
}

export function consentPage(v: ConsentView) {
  return page(
    `Sign in to ${v.appName}`,
    html`<main id="consent">
<div class="app">${v.logoUri ? html`<img src="${v.logoUri}" alt="">` : ""}<h1>Sign in to ${v.appName}</h1></div>
<p class="meta">The app's name is what its owner registered. It will receive your answer at <strong>${v.redirectHost}</strong>.</p>
${v.redirectIsLoopback ? html`<p class="warn">That address is on this computer: any program here could be listening there, whatever name it gives.</p>` : ""}
<section>
<p>As <strong id="consent-account">${v.account}</strong>, allow it to:</p>
<ul id="consent-scopes">${v.scopes.map((scope) => html`<li data-scope="${scope}">${SCOPE_SENTENCES[scope]}</li>`)}</ul>
<form method="post" action="/oauth/consent">
<input type="hidden" name="handle" value="${v.handle}">
<input type="hidden" name="account" value="${v.accountDid}">
<button type="submit" name="decision" value="allow" id="consent-allow">Allow</button>
<button type="submit" name="decision" value="deny" id="consent-deny" class="secondary">Deny</button>
</form>
</section>
<p class="meta">Not you? <a href="${v.switchUrl}">Use another account</a>. You can take this back on your <a href="/account">account page</a>.</p>
</main>`,
  );
}

export function refusedPage(description: string) {
  return page(
    "Sign-in request refused",
    html`<main id="refused">
<h1>This sign-in request cannot go on</h1>
<p id="refused-why">${description}</p>
<p class="meta">It came from an app that asked this host to sign you in. Go back to the app and try again, or tell its owner.</p>
</main>`,
  );
}
