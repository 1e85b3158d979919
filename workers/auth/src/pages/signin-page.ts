// The sign-in page (/signin?return_to=…&add=1): HTML with its style and script inline, nothing from a CDN.
import { SIGNIN_SCRIPT } from "./signin-script";

const STYLE = `
body { font: 15px/1.5 system-ui, sans-serif; max-width: 40rem; margin: 2rem auto; padding: 0 1rem; color: #1d1d1f; }
h1 { font-size: 1.5rem; } h2 { font-size: 1.1rem; margin-top: 1.5rem; }
section { border: 1px solid #ddd; border-radius: 8px; padding: 1rem; margin: 1rem 0; }
input, textarea { width: 100%; box-sizing: border-box; padding: .4rem; margin: .3rem 0; font: inherit; }
textarea { height: 9rem; font-family: ui-monospace, monospace; font-size: 12px; }
button, .button { display: inline-block; padding: .4rem .8rem; margin: .2rem .2rem .2rem 0; border: 1px solid #f7931a;
  background: #f7931a; color: #fff; border-radius: 6px; cursor: pointer; text-decoration: none; font: inherit; }
.secondary { background: #fff; color: #1d1d1f; border-color: #999; }
.msg { color: #2d6a2d; min-height: 1.2em; } .msg.error { color: #b00020; }
ul { padding-left: 1.2rem; }
`;

const ATTRIBUTE_ESCAPES: Record<string, string> = {
  "&": "&amp;",
  '"': "&quot;",
  "<": "&lt;",
  ">": "&gt;",
  "'": "&#39;",
};
const escapeAttribute = (text: string) => text.replace(/[&"<>']/g, (ch) => ATTRIBUTE_ESCAPES[ch] ?? ch);

/** `returnTo`: already checked by the return-to policy (or null); the script reads it from the body element. */
export function signinPage(options: { add: boolean; returnTo: string | null }): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign in</title>
<style>${STYLE}</style>
</head>
<body data-return-to="${escapeAttribute(options.returnTo ?? "")}">
<h1>${options.add ? "Add an account" : "Sign in"}</h1>
<section id="account">
  <p id="active">…</p>
  <ul id="accounts"></ul>
  <button id="signout-current" class="secondary">Sign out of this account</button>
  <button id="signout-all" class="secondary" hidden>Sign out of all</button>
  <p id="account-msg" class="msg"></p>
</section>
<section>
  <h2>Bitcoin</h2>
  <input id="btc-address" placeholder="Your Bitcoin address (bc1…)" autocomplete="off">
  <button id="btc-challenge">Get the message to sign</button>
  <div id="btc-step2" hidden>
    <textarea id="btc-message" readonly></textarea>
    <input id="btc-signature" placeholder="BIP-322 signature (base64)">
    <button id="btc-signin">Sign in</button>
  </div>
  <p id="btc-msg" class="msg"></p>
</section>
<section>
  <h2>Email</h2>
  <input id="email" type="email" placeholder="you@example.com" autocomplete="email">
  <button id="email-send">Send me a code</button>
  <div id="email-step2" hidden>
    <input id="email-code" inputmode="numeric" maxlength="6" placeholder="6-digit code">
    <button id="email-verify">Sign in</button>
  </div>
  <p id="email-msg" class="msg"></p>
</section>
<section>
  <h2>Providers</h2>
  <div id="providers"></div>
</section>
<script>${SIGNIN_SCRIPT}</script>
</body>
</html>
`;
}
