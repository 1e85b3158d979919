// The dashboard's DOM helpers: `h` (shared/browser/dom.ts, the auth host's account page uses it too) and the small
// pieces every screen builds with it.
import { type Attrs, type Children, h } from "../../../../shared/browser/dom";

export { type Attrs, type Child, type Children, flat, h } from "../../../../shared/browser/dom";

export const time = (iso: string | null | undefined): string =>
  iso ? `${iso.replace("T", " ").slice(0, 19)} UTC` : "—";
export const short = (id: string | null | undefined): string =>
  id && id.length > 16 ? `${id.slice(0, 12)}…` : (id ?? "—");

/** A section with a heading: h("section") with an h3 first. */
export const section = (title: string, ...children: Children[]): HTMLElement =>
  h("section", { "aria-label": title }, h("h3", {}, title), ...children);

/**
 * A box that scrolls sideways when its content is wider than the screen (dashboard.css `.table-scroll`). A keyboard
 * must reach it to scroll it (WCAG 2.1.1), so it is a focusable, named region.
 */
export const scrollBox = (label: string, content: HTMLElement): HTMLElement =>
  h("div", { class: "table-scroll", tabindex: "0", role: "region", "aria-label": label }, content);

export const badge = (text: string): HTMLElement =>
  h("span", { class: `badge badge-${text.replace(/[^a-z_]/g, "")}` }, text);

/** A button that loads the next page once, then removes itself. */
export function moreButton(label: string, load: () => unknown, attrs: Attrs = {}): HTMLButtonElement {
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

/** Shows one page of a list, in place of the earlier pages or after them, with "More" while the list goes on. */
export function showPage(
  list: HTMLElement,
  page: Node,
  append: boolean,
  next: string | null | undefined,
  loadNext: (cursor: string) => unknown,
) {
  if (append) list.append(page);
  else list.replaceChildren(page);
  if (next) list.append(moreButton("More", () => loadNext(next)));
}
