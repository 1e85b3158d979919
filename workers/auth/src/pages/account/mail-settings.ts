// The mail settings section (issue 46, item 2): the notices a person may turn off (an app allowed to sign them in),
// and a sentence on those always sent, which are about the account's safety.
import { api } from "../shared/api";
import { byId } from "../signin/dom";
import { sentenceFor, showError, showInfo } from "../signin/messages";

interface Settings {
  settings: { app_allowed: boolean };
}

const line = () => byId("mail-msg", HTMLParagraphElement);
const box = () => byId("mail-app-allowed", HTMLInputElement);

export async function renderMailSettings(): Promise<void> {
  const read = await api<Settings>("GET", "/api/auth/mail-settings");
  if (!read.ok) return showError(line(), await sentenceFor(read));
  box().checked = read.body.settings.app_allowed;
}

export function wireMailSettings(): void {
  box().addEventListener("change", async () => {
    const wanted = box().checked;
    const out = await api<Settings>("PATCH", "/api/auth/mail-settings", { app_allowed: wanted });
    if (!out.ok) {
      box().checked = !wanted;
      return showError(line(), await sentenceFor(out));
    }
    showInfo(line(), wanted ? "You will be mailed when you allow an app." : "No more mails when you allow an app.");
  });
}
