// A few DOM helpers for the popup and the options page: elements are built with textContent, never from
// HTML strings, so a page title or a server message cannot become markup.

type Attributes = Record<string, string | boolean | undefined>

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Attributes = {},
  ...children: (Node | string | null | undefined | false)[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag)
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue
    element.setAttribute(name, value === true ? '' : value)
  }
  for (const child of children) if (child !== null && child !== undefined && child !== false) element.append(child)
  return element
}

export function replaceChildren(parent: Element, ...children: Node[]): void {
  parent.replaceChildren(...children)
}
