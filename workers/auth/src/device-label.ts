// What a person sees of a browser (issue 46, item 1): its name and system from the User-Agent, parsed by bowser (a
// maintained, MIT-licensed parser), and the approximate place of a request from Cloudflare's location fields. Pure.
import Bowser from "bowser";

/** The most of a User-Agent a session row keeps. */
export const USER_AGENT_MAX = 512;

export interface DeviceLabel {
  /** e.g. "Firefox 126", or "Unknown browser". */
  browser: string;
  /** e.g. "macOS 14.4", or "Unknown system". */
  system: string;
  /** desktop | mobile | tablet | tv | bot, or "unknown". */
  type: string;
}

function named(name: string | undefined, version: string | undefined, fallback: string): string {
  if (!name) return fallback;
  const major = version?.split(".").slice(0, 2).join(".");
  return major ? `${name} ${major}` : name;
}

/** The browser, system and kind of device a User-Agent names (never throws; an empty or odd one is "Unknown"). */
export function describeAgent(userAgent: string | null | undefined): DeviceLabel {
  if (!userAgent) return { browser: "Unknown browser", system: "Unknown system", type: "unknown" };
  try {
    const parsed = Bowser.parse(userAgent);
    return {
      browser: named(parsed.browser.name, parsed.browser.version?.split(".")[0], "Unknown browser"),
      system: named(parsed.os.name, parsed.os.version ?? parsed.os.versionName, "Unknown system"),
      type: parsed.platform.type ?? "unknown",
    };
  } catch {
    return { browser: "Unknown browser", system: "Unknown system", type: "unknown" };
  }
}

/** A short sentence for a mail: "Firefox 126 on macOS 14.4". */
export function agentSentence(userAgent: string | null | undefined): string {
  const label = describeAgent(userAgent);
  return `${label.browser} on ${label.system}`;
}

/** The request's User-Agent as a row keeps it (cut, control characters dropped), or null. */
export function keptUserAgent(header: string | undefined): string | null {
  const cleaned = header
    ?.replace(/[^\x20-\x7e]/g, "")
    .trim()
    .slice(0, USER_AGENT_MAX);
  return cleaned ? cleaned : null;
}

/** The fields of Cloudflare's `request.cf` this reads. */
export interface CfPlace {
  city?: unknown;
  region?: unknown;
  country?: unknown;
}

/** "City, Region, CC" from the request's Cloudflare location fields, or null when it has none (local runs). */
export function placeOf(cf: object | undefined): string | null {
  if (!cf) return null;
  const { city, region, country } = cf as CfPlace;
  const parts = [city, region, country]
    .filter((p): p is string => typeof p === "string" && p.trim() !== "")
    .map((p) => p.trim().slice(0, 64));
  const unique = parts.filter((p, i) => parts.indexOf(p) === i);
  return unique.length > 0 ? unique.join(", ") : null;
}
