// The dashboard's one DOM helper: elements built with textContent only (API data never becomes markup). Children are
// `string | Node` or lists of them, flattened fully: a null, a number or an object is a compile error, not a word
// on the page (numbers go through String() where they are shown).
export type Child = string | Node;
export type Children = Child | readonly Children[];
type Listener = (event: Event) => unknown;

/** Attributes: strings (true: present, false/undefined: absent), `on…` listeners and `dataset`. */
export interface Attrs {
  dataset?: Record<string, string>;
  onclick?: Listener;
  onsubmit?: Listener;
  [name: string]: string | boolean | undefined | Listener | Record<string, string>;
}

/** h("button", {type: "button", onclick}, "Save"): attributes, `on…` listeners, then children. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Children[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    if (typeof value === "function") el.addEventListener(key.slice(2), value);
    else if (typeof value === "object") Object.assign(el.dataset, value);
    else el.setAttribute(key, value === true ? "" : value);
  }
  el.append(...flat(children));
  return el;
}

/** Every child in order, however deeply listed. */
export const flat = (children: readonly Children[]): Child[] =>
  children.flatMap((child) => (typeof child === "string" || child instanceof Node ? [child] : flat(child)));

export const time = (iso: string | null | undefined): string =>
  iso ? `${iso.replace("T", " ").slice(0, 19)} UTC` : "—";
export const short = (id: string | null | undefined): string =>
  id && id.length > 16 ? `${id.slice(0, 12)}…` : (id ?? "—");

/** A section with a heading: h("section") with an h3 first. */
export const section = (title: string, ...children: Children[]): HTMLElement =>
  h("section", { "aria-label": title }, h("h3", {}, title), ...children);

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
