// A local webhook receiver for the README walk-through (the one the tests use): /ok/<name> answers 200,
// /fail/<name> 500, /hang/<name> after 9 s. Give it the endpoint's secret and it verifies every delivery with the
// stock libraries.
import { startReceiver } from "../test/harness/webhook-receiver.mjs";
import { listening, parseCli } from "./lib/cli.mjs";

const USAGE = `A local webhook receiver: /ok/<name> answers 200, /fail/<name> 500, /hang/<name> after 9 s.

  npm run receiver -- [--port 8790] [--secret whsec_… --path /ok/demo]

With --secret it verifies every delivery to --path with the stock libraries. Ctrl-C stops it.`;

const { values } = parseCli(USAGE, {
  options: {
    port: { type: "string", default: "8790" },
    secret: { type: "string" },
    path: { type: "string", default: "/ok/demo" },
  },
});
const receiver = await listening("the receiver", values.port, () => startReceiver({ port: Number(values.port) }));
if (values.secret) {
  await fetch(`${receiver.url}/__admin/secret`, {
    method: "PUT",
    body: JSON.stringify({ path: values.path, secret: values.secret }),
  });
}
console.log(`receiver on ${receiver.url} (paths /ok/…, /fail/…, /hang/…); deliveries are printed as they arrive`);
let seen = 0;
setInterval(async () => {
  const all = await (await fetch(`${receiver.url}/__admin/received`)).json();
  for (const r of all.slice(seen)) {
    const verified =
      values.secret && r.path === values.path
        ? ` signature: ${r.serviceOk ? "valid" : "INVALID"} (sha256=), ${r.standardOk ? "valid" : "INVALID"} (Standard Webhooks)`
        : "";
    console.log(
      `${r.path} ${r.headers["x-service-event"]} attempt ${r.headers["x-service-attempt"] ?? 1} id ${r.headers["webhook-id"]}${verified}`,
    );
  }
  seen = all.length;
}, 500);
process.on("SIGINT", () => process.exit(0));
