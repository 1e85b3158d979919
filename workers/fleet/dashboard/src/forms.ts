// Form pieces: labelled inputs and selects (the control is `.input`), the table of a list, and the panel that shows
// a secret once.
import { type Attrs, type Children, h, scrollBox, time } from "./ui";

export type Field<E extends HTMLElement = HTMLInputElement> = HTMLLabelElement & { input: E };

/** A labelled input: the label wraps its text and the control. */
export function field(label: string, attrs: Attrs): Field {
  const input = h("input", attrs);
  return Object.assign(h("label", { class: "field" }, h("span", {}, label), input), { input });
}

/** A labelled select; options are values or [value, text] pairs. */
export function select(
  label: string,
  name: string,
  options: readonly (string | readonly [string, string])[],
  value: string,
): Field<HTMLSelectElement> {
  const input = h("select", { name });
  for (const option of options) {
    const [val, text] = typeof option === "string" ? [option, option] : option;
    input.append(h("option", { value: val, selected: val === value }, text));
  }
  return Object.assign(h("label", { class: "field" }, h("span", {}, label), input), { input });
}

export interface Column<T> {
  label: string;
  cell: (row: T) => Children;
}

/**
 * One row per item, in a box that scrolls sideways; an empty list shows `empty` in one row. Each cell names its
 * column (`data-label`), so a list inside `.cards` can show a row as a card on a phone (dashboard.css).
 */
export function table<T>(caption: string, columns: readonly Column<T>[], rows: readonly T[], empty = "None yet.") {
  const body = rows.length
    ? rows.map((row) =>
        h(
          "tr",
          {},
          columns.map((col) => h("td", { "data-label": col.label }, col.cell(row))),
        ),
      )
    : [h("tr", {}, h("td", { colspan: String(columns.length), class: "empty" }, empty))];
  const head = h(
    "thead",
    {},
    h(
      "tr",
      {},
      columns.map((col) => h("th", { scope: "col" }, col.label)),
    ),
  );
  return scrollBox(caption, h("table", {}, h("caption", {}, caption), head, h("tbody", {}, body)));
}

/** A "Created"-style column of a timestamp field. */
export const timeColumn = <T>(label: string, read: (row: T) => string | null): Column<T> => ({
  label,
  cell: (row) => time(read(row)),
});

/** A secret the API returns once: shown in a read-only field with a copy button, kept nowhere else. */
export function secretOnce(title: string, secret: string): HTMLElement {
  const input = h("input", { readonly: true, value: secret, class: "secret", "aria-label": title, size: "40" });
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

/** A form that changes the project: an archived project is read-only, so it shows a hint instead. */
export const unlessArchived = (archived: boolean, ...form: Children[]): Children =>
  archived ? h("p", { class: "hint read-only" }, "Archived: read-only.") : form;
