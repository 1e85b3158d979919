// A webhook endpoint's health as the dashboard shows it (issue 30): a coloured dot beside the state in words (the
// colour is never the only sign) and the last failure with its reason. The overview's lines and each endpoint's card.
import { type Children, h, time } from "./ui";

export type Health = "green" | "degrading" | "failing" | "paused" | "idle";

const WORDS: Record<Health, string> = {
  green: "healthy",
  degrading: "degrading",
  failing: "failing",
  paused: "paused",
  idle: "idle",
};

/** The dot and the state's word. */
export const healthMark = (health: Health): Children => [
  h("span", { class: "health-dot", "aria-hidden": "true" }),
  h("strong", {}, WORDS[health]),
];

/** ` · last failure <reason> at <time>`, or nothing. */
export const lastFailureText = (failure: { at: string; reason: string } | null): string =>
  failure ? ` · last failure ${failure.reason} at ${time(failure.at)}` : "";
