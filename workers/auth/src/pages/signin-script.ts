// The sign-in page's script, served inline (no CDN, no build step): Bitcoin challenge and signature, email code,
// provider buttons, and the browser's accounts with switch and sign-out. It talks only to this host's JSON API.
export const SIGNIN_SCRIPT = `
const params = new URLSearchParams(location.search);
const add = params.get("add") === "1";
// Checked by the server against the return-to policy; never read from the query string here.
const returnTo = document.body.dataset.returnTo || null;
const $ = (id) => document.getElementById(id);
const show = (id, text, error) => { const el = $(id); el.textContent = text; el.className = error ? "msg error" : "msg"; };

async function api(method, path, body) {
  const res = await fetch(path, { method, headers: body ? { "content-type": "application/json" } : {}, body: body ? JSON.stringify(body) : undefined, credentials: "same-origin" });
  let json = {};
  try { json = await res.json(); } catch {}
  return { status: res.status, json };
}

function label(account) {
  return (account.display_name || account.display_identity.value) + " · " + account.display_identity.kind;
}

async function refresh() {
  const me = await api("GET", "/api/auth/me");
  const box = $("accounts");
  box.innerHTML = "";
  if (me.status !== 200) {
    $("active").textContent = "Not signed in.";
    $("signout-all").hidden = true;
    return;
  }
  $("active").textContent = "Signed in as " + label(me.json.account);
  $("active").dataset.did = me.json.account.did_oc;
  $("signout-all").hidden = false;
  for (const entry of me.json.roster || []) {
    const li = document.createElement("li");
    li.textContent = label(entry) + " ";
    const button = document.createElement("button");
    button.textContent = "Switch";
    button.dataset.switch = entry.did_oc;
    button.onclick = async () => { const r = await api("POST", "/api/auth/switch", { did_oc: entry.did_oc }); if (r.status !== 200) show("account-msg", r.json.reason, true); await refresh(); };
    li.append(button);
    box.append(li);
  }
}

async function done(res, msgId) {
  if (res.status !== 200) return show(msgId, res.json.reason || "failed", true);
  show(msgId, "Signed in as " + label(res.json.account));
  if (returnTo) location.assign(returnTo);
  await refresh();
}

$("btc-challenge").onclick = async () => {
  const addr = $("btc-address").value.trim();
  const q = new URLSearchParams({ addr, audience: location.origin, purpose: "login" });
  const res = await api("GET", "/api/challenge?" + q);
  if (res.status !== 200) return show("btc-msg", res.json.reason || "failed", true);
  $("btc-message").value = res.json.message;
  $("btc-message").dataset.nonce = res.json.nonce;
  $("btc-step2").hidden = false;
  show("btc-msg", "Sign this message with your wallet (BIP-322), then paste the signature.");
};

$("btc-signin").onclick = async () => {
  const body = { address: $("btc-address").value.trim(), message: $("btc-message").value, signature: $("btc-signature").value.trim(), nonce: $("btc-message").dataset.nonce, add };
  await done(await api("POST", "/api/auth/signin", body), "btc-msg");
};

$("email-send").onclick = async () => {
  const res = await api("POST", "/api/auth/email-otp/start", { email: $("email").value.trim() });
  if (res.status !== 200) return show("email-msg", res.json.reason || "failed", true);
  $("email-step2").hidden = false;
  show("email-msg", "A 6-digit code is on its way.");
};

$("email-verify").onclick = async () => {
  await done(await api("POST", "/api/auth/email-otp/verify", { email: $("email").value.trim(), code: $("email-code").value.trim(), add }), "email-msg");
};

$("signout-current").onclick = async () => { await api("POST", "/api/auth/logout?scope=current"); await refresh(); };
$("signout-all").onclick = async () => { await api("POST", "/api/auth/logout?scope=all"); await refresh(); };

(async () => {
  const res = await api("GET", "/api/auth/providers");
  const list = $("providers");
  for (const p of (res.json.providers || [])) {
    const a = document.createElement("a");
    a.className = "button";
    a.textContent = "Continue with " + p.label;
    a.dataset.provider = p.id;
    const q = new URLSearchParams({ return_to: returnTo || "/signin" + (add ? "?add=1" : "") });
    if (add) q.set("add", "1");
    a.href = "/api/auth/" + encodeURIComponent(p.id) + "/start?" + q;
    list.append(a);
  }
  if (!list.children.length) list.textContent = "No providers are configured.";
  await refresh();
})();
`;
