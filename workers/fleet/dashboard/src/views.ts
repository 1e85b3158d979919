// The project's views, in tab order: one list, read by the router (main.ts) and by the browser sweep
// (test/e2e/pages.node.test.ts), so a view added here is visited by the sweep too. Data only: no DOM.
export const VIEWS = [
  { id: "overview", label: "Overview" },
  { id: "members", label: "Members" },
  { id: "tokens", label: "API tokens" },
  { id: "webhooks", label: "Webhooks" },
  { id: "envelopes", label: "Envelopes" },
  { id: "pledges", label: "Pledges" },
  { id: "audit", label: "Audit export" },
  { id: "log", label: "Admin log" },
  { id: "billing", label: "Billing" },
] as const;

export type ViewId = (typeof VIEWS)[number]["id"];
