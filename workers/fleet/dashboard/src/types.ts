// The API's shapes the dashboard reads (the fleet's zod schemas, GET /api/openapi, are the source), and what every
// screen is given.
export interface Account {
  did_oc: string;
  display_name?: string | null;
  display_identity?: { kind: string; value: string } | null;
  primary_btc?: string | null;
}

export interface Project {
  id: string;
  name: string;
  owner_address: string;
  /** Where its registry database is: a D1 location hint, `eu`, or `default`. */
  location: string;
  archived: boolean;
  /** Whether anyone may read its log (PUT /api/projects/{id}/log-visibility, owners only). */
  log_public: boolean;
  created_at: string;
  updated_at: string;
}

export interface ScreenContext {
  project: Project;
  role: string;
  me: Account;
  container: HTMLElement;
  reload: () => Promise<void>;
  billingReturn: string | null;
  adminEvents: readonly string[];
  pledgeStates: readonly string[];
}

/** Where a list continues (the API's cursor pagination). */
export interface Page {
  next_cursor?: string | null;
}
