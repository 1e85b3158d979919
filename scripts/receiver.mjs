// A local webhook receiver for the README walk-through (the one the tests use): /ok/<name> answers 200,
// /fail/<name> 500, /hang/<name> after 9 s. Give it the endpoint's secret and it verifies every delivery with the
// stock libraries: npm run receiver -- [--port 8790] [--secret whsec_… --path /ok/demo]
import { parseArgs } from "node:util";
import { startReceiver } from "../test/harness/webhook-receiver.mjs";

const { values } = parseArgs({
  options: {
    port: { type: "string", default: "8790" },
    secret: { type: "string" },
    path: { type: "string", default: "/ok/demo" },
  },
});
const receiver = await startReceiver({ port: Number(values.port) });
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
