// The webhook event each registration emits, by envelope kind. The database writes the event with the envelope
// (the `envelopes_registered` trigger, d1-migrations/0009_registration_trigger.sql, maps the kind the same way);
// this table is that mapping for the code, and a test holds the trigger to it.
export const REGISTERED_EVENT = {
  delegation: "delegation.registered",
  subdelegation: "subdelegation.registered",
  action: "action.registered",
  revocation: "revocation.registered",
  pledge: "pledge.registered",
  outcome: "pledge.outcome",
  abandonment: "pledge.abandoned",
} as const;

export type RegisteredKind = keyof typeof REGISTERED_EVENT;
