// Registering a signed envelope with a fleet registry under a project API token (`ock_…`): the route is chosen by
// the envelope's kind; the answer is the registry's own ({ok:true, …} with 201, or {ok:false, reason, detail}).
import { kitHeaders } from "../version";

export const ENVELOPE_ROUTES = {
  "agent-delegation": "/api/delegations",
  "agent-subdelegation": "/api/subdelegations",
  "agent-action": "/api/actions",
  "agent-revocation": "/api/revocations",
  pledge: "/api/pledges",
  "pledge-outcome": "/api/pledge-outcomes",
  "pledge-abandonment": "/api/pledge-abandonments",
} as const;
export type EnvelopeKindLabel = keyof typeof ENVELOPE_ROUTES;

export interface RegisterOptions {
  /** The fleet's origin, e.g. http://localhost:8788 */
  fleet: string;
  /** A project API token, ock_… */
  token: string;
  /** proj_… */
  project: string;
  fetch?: typeof fetch;
}

export interface Registration {
  status: number;
  body: { ok: boolean; reason?: string; detail?: string; [key: string]: unknown };
}

/** The registry route of an envelope (federation delegations have their own). Throws for an unknown kind. */
export function registrationPath(envelope: { kind?: unknown; principal?: unknown }): string {
  const kind = String(envelope.kind) as EnvelopeKindLabel;
  const path = ENVELOPE_ROUTES[kind];
  if (!path) throw new TypeError(`not an OC Agent or OC Pledge envelope kind: ${String(envelope.kind)}`);
  const principal = envelope.principal as { alg?: unknown } | undefined;
  return kind === "agent-delegation" && principal?.alg === "federation" ? `${path}/federation` : path;
}

export async function registerEnvelope(envelope: object, options: RegisterOptions): Promise<Registration> {
  const doFetch = options.fetch ?? ((input, init) => fetch(input, init));
  const res = await doFetch(`${options.fleet.replace(/\/$/, "")}${registrationPath(envelope)}`, {
    method: "POST",
    headers: kitHeaders({ authorization: `Bearer ${options.token}`, "content-type": "application/json" }),
    body: JSON.stringify({ project_id: options.project, envelope }),
  });
  let body: Registration["body"];
  try {
    body = (await res.json()) as Registration["body"];
  } catch {
    body = { ok: false, reason: "bad_response", detail: `HTTP ${res.status} without a JSON body` };
  }
  return { status: res.status, body };
}
