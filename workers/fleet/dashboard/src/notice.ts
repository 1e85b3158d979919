// A live region showing the last outcome of a form: an error names its reason beside the server's sentence; a
// success is a short green sentence; an outcome still under way (a retried delivery still pending) is amber.
import { type Failure, messageFor } from "./api";
import { h } from "./ui";

type Result = { ok: true } | Failure;

export interface Notice extends HTMLDivElement {
  error(result: Failure): void;
  ok(text: string): void;
  warn(text: string): void;
  clear(): void;
  /** Shows the error of a failed result and returns false; returns true for a success (showing `okText` if any). */
  check(result: Result, okText?: string): boolean;
  /**
   * A failed result shows its error (false); a success first runs `then` (say, reloading the list, so the page is
   * settled when the sentence appears), then shows `okText` (a string or a function of the result) and gives true.
   */
  settle<R extends Result>(
    result: R,
    then: () => unknown,
    okText: string | ((ok: Exclude<R, Failure>) => string),
  ): Promise<boolean>;
}

export function notice(id?: string): Notice {
  const el = h("div", { class: "notice", role: "status", "aria-live": "polite", id });
  const show = (kind: string, role: string, ...children: (string | Node)[]) => {
    el.className = `notice ${kind}`;
    el.setAttribute("role", role);
    el.replaceChildren(...children);
  };
  const methods = {
    error: (result: Failure) => {
      const message = messageFor(result.reason);
      show(
        "error",
        "alert",
        ...(message ? [h("span", { class: "message" }, message), " "] : []),
        h("code", { class: "reason", dataset: { reason: result.reason } }, result.reason),
        ...(result.detail ? [h("span", { class: "detail" }, ` ${result.detail}`)] : []),
      );
    },
    ok: (text: string) => show("ok", "status", text),
    warn: (text: string) => show("warn", "status", text),
    clear: () => show("", "status"),
    check(result: Result, okText?: string) {
      if (!result.ok) {
        methods.error(result);
        return false;
      }
      if (okText) methods.ok(okText);
      else methods.clear();
      return true;
    },
    async settle<R extends Result>(
      result: R,
      then: () => unknown,
      okText: string | ((ok: Exclude<R, Failure>) => string),
    ) {
      if (!result.ok) {
        methods.error(result);
        return false;
      }
      await then();
      methods.ok(typeof okText === "function" ? okText(result as Exclude<R, Failure>) : okText);
      return true;
    },
  };
  return Object.assign(el, methods);
}
