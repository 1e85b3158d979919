// The page's elements by id, typed: a missing element or one of another kind fails loudly at start, not later.

export function byId<T extends HTMLElement>(id: string, type: { new (): T; prototype: T }): T {
  const element = document.getElementById(id);
  if (!(element instanceof type)) throw new Error(`the sign-in page has no ${type.name} #${id}`);
  return element;
}

/** Sizes a textarea to its whole content (no cut last line, no inner scrollbar); it must be visible. */
export function fitToContent(area: HTMLTextAreaElement): void {
  area.style.height = "auto";
  const borders = area.offsetHeight - area.clientHeight;
  area.style.height = `${area.scrollHeight + borders}px`;
}
