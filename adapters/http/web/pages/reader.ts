import type { HtmlContentDto } from '../../../app/reading.ts'
import type { SavedItem } from '../../../../core/types.ts'
import { itemHighlightsSection } from './highlights.ts'
import { html, raw, type SafeHtml } from './html.ts'
import { csrfField } from './parts.ts'

/** The article as the reader view embeds it, marks drawn, and the list of its highlights (docs/highlights.md#web). */
export interface MarkedArticle {
  /** The gated article with the highlights' marks. */
  article: string
  /** The list items under it (no CSRF token: they are the same for every session). */
  entries: string
  /** How many highlights the list has. */
  count: number
}

export interface ReaderView {
  csrf: string
  item: SavedItem
  /** The item's article, or null while it has none. */
  content: HtmlContentDto | null
  /** The article as embedded, its highlights marked, and their list (../reader-marks.ts); null without one. */
  marked: MarkedArticle | null
}

// Stored URLs passed capture's http(s) check; this keeps a link from ever being `javascript:`.
const isWebUrl = (url: string): boolean => /^https?:\/\//i.test(url)

/** The page's title: the article's, else the item's, else its address. */
export const readerTitle = (view: ReaderView): string => view.content?.title ?? view.item.title ?? view.item.originalUrl

function actions(view: ReaderView): SafeHtml {
  const { item } = view
  return html`<div class="reader-actions">
  <form method="post" action="/queue/items/${item.id}/read-state">
    ${csrfField(view.csrf)}
    <input type="hidden" name="isRead" value="${item.isRead ? 'false' : 'true'}">
    <input type="hidden" name="return" value="reader">
    <button type="submit" class="secondary">${item.isRead ? 'Mark unread' : 'Mark read'}</button>
  </form>
  ${
    isWebUrl(item.originalUrl)
      ? html`<a class="button secondary" href="${item.originalUrl}" target="_blank" rel="noopener noreferrer">Open original</a>`
      : null
  }
  ${
    // The article as a book for an e-reader (docs/import-export.md#epub); an item without one has no book worth reading.
    view.content ? html`<a class="button secondary" href="/items/${item.id}/epub" download>Download EPUB</a>` : null
  }
</div>`
}

/**
 * One item to read (docs/web.md#reader-view). The script that keeps the reading position finds what it
 * needs in the article's `data-` attributes: the page has no inline script for a policy to allow. The
 * highlights are marks in the article, placed from their text offsets (docs/highlights.md#web), and a list
 * under it.
 */
export function readerPage(view: ReaderView): SafeHtml {
  const { item, content } = view
  const site = content?.siteName ?? item.siteName ?? item.host
  if (!content) {
    return html`<article class="reader">
  <header class="reader-head">
    <p class="muted reader-site">${site}</p>
    <h1>${readerTitle(view)}</h1>
    ${actions(view)}
  </header>
  <p class="notice">This item has no readable content yet. It appears here once the page has been read; until then, open the original.</p>
</article>`
  }
  const details = [content.byline, `${content.readingMinutes} min read`].filter((part) => part !== null)
  // The article's language for its title and text (hyphenation, voices), not for our own labels around them.
  const lang = content.lang ? html` lang="${content.lang}"` : null
  return html`<article class="reader" data-item-id="${item.id}" data-csrf="${view.csrf}" data-progress="${String(content.progress)}">
  <header class="reader-head">
    <p class="muted reader-site">${site}</p>
    <h1${lang}>${readerTitle(view)}</h1>
    <p class="muted reader-byline">${details.join(' · ')}</p>
    ${actions(view)}
  </header>
  <div class="article"${lang}>${raw(view.marked?.article ?? '')}</div>
  ${itemHighlightsSection({ csrf: view.csrf, itemId: item.id, count: view.marked?.count ?? 0, entries: raw(view.marked?.entries ?? '') })}
</article>`
}
