// The mail adapter (DECISIONS 10): a Resend-compatible HTTP API (MAIL_API_URL, MAIL_API_KEY, MAIL_FROM), or in
// local dev (DEV_MAIL_LOG=true) the dev log. Without either, 503 mailer_not_configured; an API that refuses is
// 502 mailer_error. Message text never reaches the logs outside dev.
import { AppError } from "../errors";
import { headerValueProblem } from "../text";

export interface MailConfig {
  MAIL_API_URL?: string;
  MAIL_API_KEY?: string;
  MAIL_FROM?: string;
  DEV_MAIL_LOG?: string;
}

export interface Mail {
  to: string;
  subject: string;
  text: string;
  /** An HTML rendering of `text` (issue 46: notices readable in a phone's mail app); the text part is always sent. */
  html?: string;
  replyTo?: string;
}

/** How long the mail API may take. */
export const MAIL_TIMEOUT_MS = 8_000;

export function mailerConfigured(config: MailConfig): boolean {
  return Boolean((config.MAIL_API_URL && config.MAIL_API_KEY && config.MAIL_FROM) || config.DEV_MAIL_LOG === "true");
}

/** Every value that reaches a mail header, checked here and nowhere else: a line break would start a new header. */
function checkHeaders(config: MailConfig, mail: Mail): void {
  const headers = { to: mail.to, subject: mail.subject, reply_to: mail.replyTo, from: config.MAIL_FROM };
  for (const [name, value] of Object.entries(headers)) {
    const problem = value === undefined ? undefined : headerValueProblem(value);
    if (problem)
      throw new AppError("invalid_body", {
        detail: `${name === "subject" ? "a value in the subject" : name} ${problem}`,
      });
  }
}

export async function sendMail(config: MailConfig, mail: Mail): Promise<void> {
  checkHeaders(config, mail);
  if (config.MAIL_API_URL && config.MAIL_API_KEY && config.MAIL_FROM) {
    let res: Response;
    try {
      res = await fetch(`${config.MAIL_API_URL.replace(/\/+$/, "")}/emails`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${config.MAIL_API_KEY}` },
        body: JSON.stringify({
          from: config.MAIL_FROM,
          to: [mail.to],
          subject: mail.subject,
          text: mail.text,
          ...(mail.html && { html: mail.html }),
          ...(mail.replyTo && { reply_to: mail.replyTo }),
        }),
        signal: AbortSignal.timeout(MAIL_TIMEOUT_MS),
      });
    } catch (err) {
      throw new AppError("mailer_error", {
        detail: `mail API unreachable: ${err instanceof Error ? err.name : "error"}`,
      });
    }
    if (!res.ok) throw new AppError("mailer_error", { detail: `mail API answered ${res.status}` });
    return;
  }
  if (config.DEV_MAIL_LOG === "true") {
    console.log(`[dev mail] to ${mail.to}: ${mail.subject}\n${mail.text}`);
    return;
  }
  throw new AppError("mailer_not_configured");
}
