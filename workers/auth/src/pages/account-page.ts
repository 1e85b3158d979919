// The account security page (/account; issue 27): the active account's identities, security keys and passkeys,
// recovery address, this browser's accounts and the account log, each sensitive action with its re-authentication
// asked inline. Markup through hono/html (every interpolated value escaped); the sections are filled by the bundled
// module at ACCOUNT_SCRIPT_PATH (source in ./account/), nothing inline, nothing from a CDN.
import { html, raw } from "hono/html";

/** Where scripts/build-assets.mjs puts the bundle of ./account/main.ts among the static assets. */
export const ACCOUNT_SCRIPT_PATH = "/auth-assets/account.js";

const STYLE = `
[hidden] { display: none !important; }
body { font: 15px/1.5 system-ui, sans-serif; max-width: 48rem; margin: 2rem auto; padding: 0 1rem; color: #1d1d1f; }
h1 { font-size: 1.5rem; } h2 { font-size: 1.1rem; margin: 0 0 .5rem; } h3 { font-size: 1rem; margin: .8rem 0 .3rem; }
section { border: 1px solid #ddd; border-radius: 8px; padding: 1rem; margin: 1rem 0; }
input, textarea, select { width: 100%; box-sizing: border-box; padding: .4rem; margin: .3rem 0; font: inherit; }
textarea { font-family: ui-monospace, monospace; font-size: 12px; resize: none; overflow: hidden; }
button, .button { display: inline-block; padding: .3rem .7rem; margin: .2rem .2rem .2rem 0; border: 1px solid #f7931a;
  background: #f7931a; color: #1d1d1f; border-radius: 6px; cursor: pointer; text-decoration: none; font: inherit;
  max-width: 100%; box-sizing: border-box; text-align: left; overflow-wrap: anywhere; }
.secondary { background: #fff; color: #1d1d1f; border-color: #999; }
.danger { background: #fff; color: #b00020; border-color: #b00020; }
.msg { color: #2d6a2d; min-height: 1.2em; } .msg.error { color: #b00020; }
ul.rows { list-style: none; padding: 0; margin: 0; }
ul.rows > li { border-top: 1px solid #eee; padding: .5rem 0; display: flex; flex-wrap: wrap; gap: .3rem .6rem;
  align-items: center; }
ul.rows > li > .what { flex: 1 1 16rem; min-width: 0; }
.meta { color: #666; font-size: 13px; }
.badge { display: inline-block; font-size: 12px; padding: 0 .4rem; border-radius: 4px; background: #eef; }
#reauth { border-color: #f7931a; background: #fffaf2; }
#leave-banner { border-color: #b00020; background: #fff5f5; }
p, li, .msg, code, .what { overflow-wrap: anywhere; }
`;

export function accountPage() {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Account security</title>
<style>${raw(STYLE)}</style>
<script type="module" src="${ACCOUNT_SCRIPT_PATH}"></script>
</head>
<body>
<h1>Account security</h1>
<section id="summary">
  <p id="who">…</p>
  <p id="summary-msg" class="msg" role="status"></p>
  <p><a href="/signin">Sign in</a> · <a href="/signin?add=1">Add another account</a></p>
</section>
<section id="leave-banner" hidden role="alert">
  <p id="leave-when"></p>
  <button id="leave-undo">Keep my account</button>
  <p id="leave-banner-msg" class="msg" role="status"></p>
</section>
<section id="reauth" hidden aria-live="polite">
  <h2>Confirm it is you</h2>
  <p id="reauth-why"></p>
  <div id="reauth-methods"></div>
  <p id="reauth-msg" class="msg" role="status"></p>
  <button id="reauth-cancel" class="secondary">Cancel</button>
</section>
<div id="signed-in" hidden>
<section id="identities">
  <h2>Sign-in identities</h2>
  <ul id="identity-list" class="rows"></ul>
  <p id="identities-msg" class="msg" role="status"></p>
  <h3>Link a Bitcoin address</h3>
  <input id="link-btc-address" placeholder="The address (bc1…, 1…, 3…)" autocomplete="off">
  <button id="link-btc-challenge" class="secondary">Get the message to sign</button>
  <div id="link-btc-step2" hidden>
    <textarea id="link-btc-message" readonly rows="1" aria-label="The message to sign"></textarea>
    <input id="link-btc-signature" placeholder="BIP-322 signature (base64)" autocomplete="off">
    <button id="link-btc-submit">Link this address</button>
  </div>
  <h3>Link an email</h3>
  <input id="link-email" type="email" placeholder="you@example.com" autocomplete="email">
  <button id="link-email-send" class="secondary">Send a code</button>
  <div id="link-email-step2" hidden>
    <input id="link-email-code" inputmode="numeric" maxlength="6" placeholder="6-digit code" autocomplete="one-time-code">
    <button id="link-email-submit">Link this email</button>
  </div>
  <h3>Link a provider</h3>
  <div id="link-providers"></div>
</section>
<section id="keys">
  <h2>Security keys and passkeys</h2>
  <ul id="key-list" class="rows"></ul>
  <input id="key-name" placeholder="A name for the new key (optional)" maxlength="64" autocomplete="off">
  <button id="key-add">Add a security key or passkey</button>
  <p id="keys-msg" class="msg" role="status"></p>
</section>
<section id="recovery">
  <h2>Recovery address</h2>
  <p id="recovery-now"></p>
  <input id="recovery-email" type="email" placeholder="recovery@example.com" autocomplete="email">
  <button id="recovery-send" class="secondary">Send a code to this address</button>
  <div id="recovery-step2" hidden>
    <input id="recovery-code" inputmode="numeric" maxlength="6" placeholder="6-digit code" autocomplete="one-time-code">
    <button id="recovery-submit">Use this recovery address</button>
  </div>
  <button id="recovery-remove" class="danger" hidden>Remove the recovery address</button>
  <p id="recovery-msg" class="msg" role="status"></p>
</section>
<section id="sessions">
  <h2>This browser's accounts</h2>
  <ul id="session-list" class="rows"></ul>
  <p id="sessions-msg" class="msg" role="status"></p>
</section>
<section id="devices">
  <h2>Devices</h2>
  <p class="meta">Where this account is signed in: each browser, roughly where it signed in (from its network), how,
  and when it was last used. Sign out any you do not know.</p>
  <ul id="device-list" class="rows"></ul>
  <button id="devices-others" class="danger" hidden>Sign out of every other device</button>
  <p id="devices-msg" class="msg" role="status"></p>
</section>
<section id="mail">
  <h2>Security mail</h2>
  <p class="meta">Every address of this account is mailed when someone signs in from a new device, a key or a way to
  sign in is added or removed, the recovery address changes, accounts are merged or deletion is asked for. Those
  always go out.</p>
  <label><input type="checkbox" id="mail-app-allowed" style="width:auto"> Also mail me when I allow an app to sign
  me in</label>
  <p id="mail-msg" class="msg" role="status"></p>
</section>
<section id="apps">
  <h2>Apps you sign in to</h2>
  <p class="meta">Apps you allowed to sign you in with this account, and what each may read. Take one back and it
  asks you again next time; the tokens it holds for you stop working.</p>
  <ul id="consent-list" class="rows"></ul>
  <p id="apps-msg" class="msg" role="status"></p>
</section>
<section id="developer">
  <h2>Your apps: Sign in with Bitcoin</h2>
  <p class="meta">Register an app of yours to sign people in with this host, as any OpenID Connect app does:
  issuer <code id="oidc-issuer"></code>.</p>
  <input id="client-name" placeholder="The app's name, as people will see it" maxlength="80" autocomplete="off">
  <textarea id="client-redirects" rows="2" placeholder="Redirect URIs, one per line (https, or http on localhost)" aria-label="Redirect URIs"></textarea>
  <input id="client-logo" placeholder="Logo URL (https, optional)" autocomplete="off">
  <select id="client-type" aria-label="App type">
    <option value="confidential">A server app (it keeps a client secret)</option>
    <option value="public">A browser or mobile app (PKCE only, no secret)</option>
  </select>
  <button id="client-create">Register the app</button>
  <div id="client-secret" hidden>
    <p>Its client secret, shown this once: keep it on your server.</p>
    <input id="client-secret-value" readonly aria-label="Client secret">
  </div>
  <ul id="client-list" class="rows"></ul>
  <p id="clients-msg" class="msg" role="status"></p>
</section>
<section id="log">
  <h2>Account log</h2>
  <ul id="log-list" class="rows"></ul>
  <button id="log-more" class="secondary" hidden>Older entries</button>
</section>
<section id="export">
  <h2>Download my data</h2>
  <p class="meta">Everything this host keeps about this account, as one JSON file: identities, keys, sessions, the
  log, apps and fleet memberships (never a secret).</p>
  <button id="export-download" class="secondary">Download my data</button>
  <p id="export-msg" class="msg" role="status"></p>
</section>
<section id="leave">
  <h2>Delete my account</h2>
  <p class="meta">Your sign-in identities, keys, sessions, apps and log are erased <span id="leave-grace">7</span>
  days after you ask; until then, signing in lets you keep the account. What others rely on stays: the envelopes
  your keys signed and the projects' logs.</p>
  <p id="leave-projects-intro"></p>
  <ul id="leave-projects" class="rows"></ul>
  <button id="leave-ask" class="danger">Delete my account</button>
  <div id="leave-confirm" hidden>
    <p>Download your data first: after the erasure nothing can be recovered.</p>
    <button id="leave-download" class="secondary">Download my data</button>
    <button id="leave-confirm-button" class="danger">Yes, delete my account</button>
    <button id="leave-cancel" class="secondary">Cancel</button>
  </div>
  <p id="leave-msg" class="msg" role="status"></p>
</section>
</div>
</body>
</html>
`;
}
