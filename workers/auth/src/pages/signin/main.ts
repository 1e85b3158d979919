// The sign-in page's script: bundled by scripts/build-assets.mjs into /auth-assets/signin.js and loaded by the page
// as a module (the CSP allows scripts from this origin only). It talks only to this host's JSON API.
import { refresh, wireSignOut } from "./accounts";
import { wireBitcoin } from "./bitcoin";
import { wireDeletionOffer } from "./deletion-offer";
import { wireEmail } from "./email";
import { loadSentences } from "./messages";
import { wirePasskey } from "./passkey";
import { showProviders, showReturnedError } from "./providers";
import type { PageContext } from "./signed-in";
import { wireWallet } from "./wallet";

const page: PageContext = {
  add: new URLSearchParams(location.search).get("add") === "1",
  // Checked by the server against the return-to policy; never read from the query string here.
  returnTo: document.body.dataset.returnTo || null,
};

wireBitcoin(page);
wireWallet(page);
wireEmail(page);
wirePasskey(page);
wireSignOut();
wireDeletionOffer();
void loadSentences();
void Promise.all([showProviders(page), showReturnedError(), refresh()]);
