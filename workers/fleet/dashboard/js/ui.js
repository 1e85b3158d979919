// Small DOM helpers for the dashboard: elements built with textContent only (API data never becomes markup),
// error notices that name the API's reason, tables, and the panel that shows a secret once.
import { messageFor } from "./api.js";

/** h("button", {type: "button", onclick}, "Save"): attributes, `on…` listeners, then children (null skipped). */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") el.addEventListener(key.slice(2), value);
    else if (key === "dataset") Object.assign(el.dataset, value);
    else if (value === true) el.setAttribute(key, "");
    else el.setAttribute(key, String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

/** A live region showing the last outcome of a form: an error names its reason; success is a short sentence. */
export function notice() {
  const el = h("div", { class: "notice", role: "status", "aria-live": "polite" });
  el.error = (result) => {
    el.className = "notice error";
    el.setAttribute("role", "alert");
    el.replaceChildren(
      h("span", { class: "message" }, messageFor(result.reason)),
      " ",
      h("code", { class: "reason", dataset: { reason: result.reason } }, result.reason),
      ...(result.detail ? [h("span", { class: "detail" }, ` ${result.detail}`)] : []),
    );
  };
  el.ok = (text) => {
    el.className = "notice ok";
    el.setAttribute("role", "status");
    el.replaceChildren(text);
  };
  el.clear = () => {
    el.className = "notice";
    el.replaceChildren();
  };
  /**
   * A failed result shows its error (false); a success first runs `then` (say, reloading the list, so the page is
   * settled when the sentence appears), then shows `okText` (a string or a function of the result) and gives true.
   */
  el.settle = async (result, then, okText) => {
    if (!result.ok) {
      el.error(result);
      return false;
    }
    await then?.();
    el.ok(typeof okText === "function" ? okText(result) : okText);
    return true;
  };
  /** Shows the error of a failed result and returns false; returns true for a success. */
  el.check = (result, okText) => {
    if (!result.ok) {
      el.error(result);
      return false;
    }
    if (okText) el.ok(okText);
    else el.clear();
    return true;
  };
  return el;
}

export const time = (iso) => (iso ? `${iso.replace("T", " ").slice(0, 19)} UTC` : "—");
export const short = (id) => (id && id.length > 16 ? `${id.slice(0, 12)}…` : (id ?? "—"));

/** columns: [{label, cell(row) → string | Node}]; an empty list shows `empty` in one row. */
export function table(caption, columns, rows, empty = "None yet.") {
  const body = rows.length
    ? rows.map((row) =>
        h(
          "tr",
          {},
          columns.map((col) => h("td", {}, col.cell(row) ?? "—")),
        ),
      )
    : [h("tr", {}, h("td", { colspan: columns.length, class: "empty" }, empty))];
  return h(
    "table",
    {},
    h("caption", {}, caption),
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        columns.map((col) => h("th", { scope: "col" }, col.label)),
      ),
    ),
    h("tbody", {}, body),
  );
}

/** A labelled input: returns [label, input] wrapped in one block; the input is `.input`. */
export function field(label, attrs) {
  const input = h(attrs.tag ?? "input", { ...attrs, tag: undefined });
  const wrap = h("label", { class: "field" }, h("span", {}, label), input);
  wrap.input = input;
  return wrap;
}

/** A labelled select; options are values or [value, text] pairs. */
export function select(label, name, options, value) {
  const wrap = field(label, { tag: "select", name });
  for (const option of options) {
    const [val, text] = Array.isArray(option) ? option : [option, option];
    wrap.input.append(h("option", { value: val, selected: val === value }, text));
  }
  return wrap;
}

/** A secret the API returns once: shown in a read-only field with a copy button, kept nowhere else. */
export function secretOnce(title, secret) {
  const input = h("input", { readonly: true, value: secret, class: "secret", "aria-label": title, size: 40 });
  const status = h("span", { role: "status", class: "copied" });
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(secret);
      status.textContent = "Copied.";
    } catch {
      input.select();
      status.textContent = "Selected: copy it with Ctrl+C.";
    }
  };
  return h(
    "div",
    { class: "secret-once", role: "region", "aria-label": title },
    h("h4", {}, title),
    h("p", {}, "Copy it now: it is shown once and never again (not even to you)."),
    input,
    " ",
    h("button", { type: "button", class: "copy", onclick: copy }, "Copy"),
    " ",
    status,
  );
}

/** A section with a heading: h("section") with an h3 first. */
export const section = (title, ...children) => h("section", { "aria-label": title }, h("h3", {}, title), ...children);

export const badge = (text) => h("span", { class: `badge badge-${String(text).replace(/[^a-z_]/g, "")}` }, text);

/** A button that loads the next page once, then removes itself. */
export function moreButton(label, load, attrs = {}) {
  const button = h(
    "button",
    {
      type: "button",
      ...attrs,
      onclick: () => {
        button.remove();
        return load();
      },
    },
    label,
  );
  return button;
}
