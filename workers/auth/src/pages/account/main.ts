// The account security page's script: bundled by scripts/build-assets.mjs into /auth-assets/account.js and loaded
// by the page as a module (the CSP allows scripts from this origin only). It talks only to this host's JSON API.
import { label } from "../signin/accounts";
import { byId } from "../signin/dom";
import { loadSentences, sentenceFor, showError, showInfo } from "../signin/messages";
import { renderApps, wireApps } from "./apps";
import { renderDevices, wireDevices } from "./devices";
import { wireExport } from "./export";
import { renderIdentities, showLinkProviders, wireIdentities } from "./identities";
import { renderKeys, wireKeys } from "./keys";
import { renderLeave, wireLeave } from "./leave";
import { loadLog } from "./log";
import { renderMailSettings, wireMailSettings } from "./mail-settings";
import { wireReauth } from "./reauth";
import { renderRecovery, wireRecovery } from "./recovery";
import { renderSessions } from "./sessions";
import { load, state } from "./state";

async function reload(): Promise<void> {
  const signedIn = await load();
  byId("signed-in", HTMLDivElement).hidden = !signedIn;
  const who = byId("who", HTMLParagraphElement);
  if (!signedIn || !state.account) {
    who.textContent = "Not signed in. Sign in to see this account's security.";
    return;
  }
  who.textContent = `Signed in as ${label(state.account)}`;
  who.dataset.did = state.account.did_oc;
  renderIdentities(reload);
  renderKeys(reload);
  renderRecovery();
  renderSessions(reload);
  await Promise.all([loadLog(), renderApps(), renderDevices(reload), renderMailSettings(), renderLeave()]);
}

/** A provider round trip came back here: say how it went. */
async function showReturned(): Promise<void> {
  const query = new URLSearchParams(location.search);
  const line = byId("summary-msg", HTMLParagraphElement);
  const error = query.get("error");
  if (error) showError(line, await sentenceFor({ reason: error }));
  else if (query.get("done") === "link") showInfo(line, "The provider's identity is linked.");
  else if (query.get("done") === "reauth") showInfo(line, "Confirmed. You can make the change now.");
}

wireReauth();
wireIdentities(reload);
wireKeys(reload);
wireRecovery(reload);
wireApps();
wireDevices(reload);
wireMailSettings();
wireExport();
wireLeave(reload);
void loadSentences();
void Promise.all([reload(), showLinkProviders(), showReturned()]);
