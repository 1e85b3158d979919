// The sign-in page (/signin?return_to=…&add=1): markup through hono/html, which escapes every interpolated value;
// its script is the bundled module at SIGNIN_SCRIPT_PATH (source in ./signin/), nothing inline, nothing from a CDN.
import { html, raw } from "hono/html";

/** Where scripts/build-assets.mjs puts the bundle of ./signin/main.ts among the static assets. */
export const SIGNIN_SCRIPT_PATH = "/auth-assets/signin.js";

const STYLE = `
[hidden] { display: none !important; }
body { font: 15px/1.5 system-ui, sans-serif; max-width: 40rem; margin: 2rem auto; padding: 0 1rem; color: #1d1d1f; }
h1 { font-size: 1.5rem; } h2 { font-size: 1.1rem; margin-top: 1.5rem; }
section { border: 1px solid #ddd; border-radius: 8px; padding: 1rem; margin: 1rem 0; }
input, textarea { width: 100%; box-sizing: border-box; padding: .4rem; margin: .3rem 0; font: inherit; }
textarea { font-family: ui-monospace, monospace; font-size: 12px; resize: none; overflow: hidden; }
button, .button { display: inline-block; padding: .4rem .8rem; margin: .2rem .2rem .2rem 0; border: 1px solid #f7931a;
  background: #f7931a; color: #1d1d1f; border-radius: 6px; cursor: pointer; text-decoration: none; font: inherit; }
.secondary { background: #fff; color: #1d1d1f; border-color: #999; }
.msg { color: #2d6a2d; min-height: 1.2em; } .msg.error { color: #b00020; }
ul { padding-left: 1.2rem; }
p, li, .msg, code { overflow-wrap: anywhere; }
`;

/** `returnTo`: already checked by the return-to policy (or null); the script reads it from the body element. */
export function signinPage(options: { add: boolean; returnTo: string | null }) {
  const heading = options.add ? "Add an account" : "Sign in";
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${heading}</title>
<style>${raw(STYLE)}</style>
<script type="module" src="${SIGNIN_SCRIPT_PATH}"></script>
</head>
<body data-return-to="${options.returnTo ?? ""}">
<h1>${heading}</h1>
<section id="account">
  <p id="active">…</p>
  <ul id="accounts"></ul>
  <button id="signout-current" class="secondary" hidden>Sign out of this account</button>
  <button id="signout-all" class="secondary" hidden>Sign out of all</button>
  <a id="account-link" class="button secondary" href="/account" hidden>Account security</a>
  <div id="deletion-offer" hidden>
    <p>This account is scheduled for deletion on <span id="deletion-when"></span>.</p>
    <button id="deletion-keep">Keep my account</button>
    <p id="deletion-msg" class="msg" role="status"></p>
  </div>
  <p id="account-msg" class="msg" role="status"></p>
</section>
<section>
  <h2>Passkey</h2>
  <button id="passkey-signin">Sign in with a passkey</button>
  <p id="passkey-msg" class="msg" role="status"></p>
</section>
<section>
  <h2>Bitcoin</h2>
  <input id="btc-address" placeholder="Your Bitcoin address (bc1…)" autocomplete="off">
  <button id="btc-wallet">Sign in with a browser wallet</button>
  <div id="btc-wallets" hidden></div>
  <button id="btc-challenge" class="secondary">Get the message to sign and paste a signature</button>
  <div id="btc-step2" hidden>
    <textarea id="btc-message" readonly rows="1" aria-label="The message to sign"></textarea>
    <input id="btc-signature" placeholder="BIP-322 signature (base64)" autocomplete="off">
    <button id="btc-signin">Sign in</button>
  </div>
  <p id="btc-msg" class="msg" role="status"></p>
</section>
<section>
  <h2>Email</h2>
  <input id="email" type="email" placeholder="you@example.com" autocomplete="username webauthn">
  <button id="email-send">Send me a code</button>
  <div id="email-step2" hidden>
    <input id="email-code" inputmode="numeric" maxlength="6" placeholder="6-digit code" autocomplete="one-time-code">
    <button id="email-verify">Sign in</button>
  </div>
  <p id="email-msg" class="msg" role="status"></p>
</section>
<section>
  <h2>Providers</h2>
  <div id="providers"></div>
  <p id="providers-msg" class="msg" role="status"></p>
</section>
</body>
</html>
`;
}
