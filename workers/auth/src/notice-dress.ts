// Every account notice in the same clothes (issue 46, item 2): where the change came from (the browser and system
// from the User-Agent, the approximate place from Cloudflare's location fields, "an unknown place" locally), the
// link to act on it (/account), and an HTML part beside the text: short paragraphs with inline styles, which phone
// mail apps render well. Nothing is added that acts by itself: the link opens the page, the person signs in there.
import type { Context } from "hono";
import type { Mail } from "../../../shared/mail/mailer";
import { agentSentence, keptUserAgent, placeOf } from "./device-label";
import type { AuthEnv } from "./env";

/** Where a request came from, in words. */
export interface Where {
  device: string;
  place: string;
}

/** The browser and approximate place of the request `c`. */
export function requestWhere(c: Context<AuthEnv>): Where {
  return {
    device: agentSentence(keptUserAgent(c.req.header("user-agent"))),
    place: placeOf(c.req.raw.cf) ?? "an unknown place",
  };
}

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (ch) => ESCAPES[ch] ?? ch);

const P = "margin:0 0 14px;font:16px/1.5 -apple-system,system-ui,sans-serif;color:#1d1d1f";
const BUTTON =
  "display:inline-block;padding:10px 16px;background:#f7931a;color:#1d1d1f;border-radius:6px;" +
  "text-decoration:none;font:600 16px/1.2 -apple-system,system-ui,sans-serif";

/** The HTML part of a notice: each paragraph of the text, escaped, then the button to the account page. */
export function noticeHtml(paragraphs: readonly string[], accountUrl: string): string {
  const body = paragraphs.map((p) => `<p style="${P}">${escapeHtml(p)}</p>`).join("");
  return (
    '<!doctype html><html><head><meta name="viewport" content="width=device-width, initial-scale=1"></head>' +
    `<body style="margin:0;padding:16px;background:#ffffff"><div style="max-width:32rem;margin:0 auto">${body}` +
    `<p style="${P}"><a href="${escapeHtml(accountUrl)}" style="${BUTTON}">Review your account</a></p>` +
    "</div></body></html>"
  );
}

/** `mail` with where it came from, the account page's address and an HTML part (a mail with HTML is left as it is). */
export function dressNotice(mail: Mail, where: Where, accountUrl: string): Mail {
  if (mail.html !== undefined) return mail;
  const paragraphs = [
    mail.text,
    `Where: ${where.device}, from ${where.place} (approximate, from the network's location).`,
    `Review where your account is signed in, its keys and its log: ${accountUrl}`,
  ];
  return { ...mail, text: paragraphs.join("\n\n"), html: noticeHtml(paragraphs, accountUrl) };
}
