// The devices section (issue 46, item 1): every browser the active account is signed in on, what it is, roughly
// where it signed in, how, when, when it was last seen, and "this device"; "Sign out" on each other one, and "Sign
// out of every other device". Signing out takes power away, so it needs no fresh proof.
import { h } from "../../../../../shared/browser/dom";
import { api } from "../shared/api";
import { byId } from "../signin/dom";
import { sentenceFor, showError, showInfo } from "../signin/messages";
import { when } from "./state";

interface Device {
  id: string;
  browser: string;
  system: string;
  type: string;
  place: string | null;
  auth_method: string | null;
  signed_in_at: string;
  last_seen_at: string;
  current: boolean;
}

const METHODS: Record<string, string> = {
  bip322: "a Bitcoin signature",
  email: "an email code",
  provider: "a sign-in provider",
  passkey: "a passkey",
  recovery: "the recovery address",
};

const line = () => byId("devices-msg", HTMLParagraphElement);

function deviceRow(device: Device, reload: () => Promise<void>): HTMLLIElement {
  const how = device.auth_method ? (METHODS[device.auth_method] ?? device.auth_method) : "an unknown way";
  const what = h(
    "span",
    { class: "what" },
    h("strong", {}, `${device.browser} on ${device.system}`),
    device.current ? [" ", h("span", { class: "badge" }, "this device")] : [],
    h("br", {}),
    h(
      "span",
      { class: "meta" },
      `${device.place ?? "Place unknown"} · signed in ${when(device.signed_in_at)} with ${how} · last seen ${when(device.last_seen_at)}`,
    ),
  );
  if (device.current) return h("li", { dataset: { device: device.id, current: "true" } }, what);
  const signOut = async () => {
    const out = await api("DELETE", `/api/auth/devices/${device.id}`);
    if (!out.ok) return showError(line(), await sentenceFor(out));
    await reload();
    showInfo(line(), `Signed out of ${device.browser} on ${device.system}.`);
  };
  return h(
    "li",
    { dataset: { device: device.id } },
    what,
    h("button", { type: "button", class: "danger", onclick: signOut }, "Sign out"),
  );
}

/** Lists the devices; the "every other device" button shows only when there is another. */
export async function renderDevices(reload: () => Promise<void>): Promise<void> {
  const read = await api<{ devices: Device[] }>("GET", "/api/auth/devices");
  if (!read.ok) return showError(line(), await sentenceFor(read));
  const { devices } = read.body;
  byId("device-list", HTMLUListElement).replaceChildren(...devices.map((d) => deviceRow(d, reload)));
  byId("devices-others", HTMLButtonElement).hidden = !devices.some((d) => !d.current);
}

export function wireDevices(reload: () => Promise<void>): void {
  byId("devices-others", HTMLButtonElement).addEventListener("click", async () => {
    const out = await api<{ signed_out: number }>("POST", "/api/auth/devices/sign-out-others");
    if (!out.ok) return showError(line(), await sentenceFor(out));
    await reload();
    const n = out.body.signed_out;
    showInfo(line(), `Signed out of ${n} other ${n === 1 ? "device" : "devices"}.`);
  });
}
