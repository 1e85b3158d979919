// The pages' one DOM helper (the fleet dashboard and the auth host's account page): elements built with textContent
// only (API data never becomes markup). Children are `string | Node` or lists of them, flattened fully: a null, a
// number or an object is a compile error, not a word on the page (numbers go through String() where they are shown).
// Browser-only: no module-level access to `document` (it is read when an element is made).
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
