import type { SavedItem } from '../../../../core/types.ts'
import { html, type SafeHtml } from './html.ts'

// The queue and the search results link an item the same way (docs/web.md#pages).

type Linked = Pick<SavedItem, 'id' | 'title' | 'originalUrl' | 'host'>

// Stored URLs passed capture's http(s) check; this keeps a link from ever being `javascript:`.
const isWebUrl = (url: string): boolean => /^https?:\/\//i.test(url)

/** The title: to the reader view when the item has an article, else to the original in a new tab. */
export function itemTitle(item: Linked, readable: boolean): SafeHtml {
  const label = item.title ?? item.originalUrl
  return readable
    ? html`<a class="title" href="/items/${item.id}">${label}</a>`
    : isWebUrl(item.originalUrl)
      ? html`<a class="title" href="${item.originalUrl}" target="_blank" rel="noopener noreferrer">${label}</a>`
      : html`<span class="title">${label}</span>`
}

/** The host: a link to the original when the title leads to the reader view, so the original stays one click away. */
export const itemHost = (item: Linked, readable: boolean): SafeHtml =>
  readable && isWebUrl(item.originalUrl)
    ? html`<a class="original" href="${item.originalUrl}" target="_blank" rel="noopener noreferrer">${item.host}</a>`
    : html`${item.host}`
