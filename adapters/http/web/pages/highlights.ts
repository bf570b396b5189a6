import type { HighlightDto, ListedHighlightDto } from '../../../app/highlights.ts'
import { html, type SafeHtml } from './html.ts'
import { csrfField, timeOf } from './parts.ts'

// The highlights of the web app (docs/web.md#highlights): the list under an article in its reader view
// (what works without JavaScript) and the page of all of a person's highlights. A quote and a note are
// text: escaped like every other value, never markup.

/** The colours' names, as the pages and the reader's colour buttons say them. */
export const COLOR_NAMES: Readonly<Record<string, string>> = {
  yellow: 'Yellow',
  green: 'Green',
  blue: 'Blue',
  pink: 'Pink',
  purple: 'Purple',
}

const colorOf = (color: string): string => (color in COLOR_NAMES ? color : 'yellow')

/** Where a highlight's mark is in its reader view. */
export const highlightHref = (itemId: string, highlightId: string): string =>
  `/items/${encodeURIComponent(itemId)}#highlight-${encodeURIComponent(highlightId)}`

const quoteOf = (highlight: HighlightDto): SafeHtml =>
  html`<blockquote class="hl-quote hl-quote-${colorOf(highlight.color)}" id="quote-${highlight.id}"><p>${highlight.quote.exact}</p></blockquote>`

const noteOf = (highlight: HighlightDto): SafeHtml | null =>
  highlight.note === null ? null : html`<p class="hl-note">${highlight.note}</p>`

const swatch = (color: string): SafeHtml =>
  html`<span class="hl-swatch"><span class="hl-dot hl-${colorOf(color)}"></span>${COLOR_NAMES[colorOf(color)]}</span>`

/**
 * The item's highlights under its article, in text order (docs/web.md#reader-view): each quote, its note and
 * colour, a link to its mark and "Delete highlight", a plain form. The reader's script reads a highlight's
 * note from here and replaces this list after each change; its help and shortcut come out of hiding then.
 */
export function itemHighlightsSection(view: {
  csrf: string
  itemId: string
  highlights: readonly HighlightDto[]
}): SafeHtml {
  const { itemId, highlights } = view
  const count = highlights.length === 1 ? '1 highlight' : `${highlights.length.toLocaleString('en-US')} highlights`
  return html`<section class="highlights" id="highlights" aria-labelledby="highlights-title">
  <h2 id="highlights-title">Highlights</h2>
  <p class="muted">${highlights.length === 0 ? 'No highlights yet.' : count} <a href="/highlights">All highlights</a></p>
  <div class="hl-help" hidden>
    <p class="muted">Select text in the article, then press “Highlight” (or <kbd>h</kbd>). Select a highlight to add a note, change its colour or delete it.</p>
    <details class="shortcuts">
      <summary>Keyboard shortcuts</summary>
      <dl>
        <dt><kbd>h</kbd></dt><dd>highlight the selected text</dd>
        <dt><kbd>Enter</kbd></dt><dd>on a highlight: its note, colour and delete</dd>
        <dt><kbd>Esc</kbd></dt><dd>close the highlight’s options</dd>
      </dl>
    </details>
  </div>
  ${
    highlights.length === 0
      ? null
      : html`<ol class="hl-list">
    ${highlights.map(
      (
        highlight,
      ) => html`<li class="hl-entry" data-highlight-entry="${highlight.id}" data-color="${colorOf(highlight.color)}">
      ${quoteOf(highlight)}
      ${noteOf(highlight)}
      <div class="hl-entry-actions">
        ${swatch(highlight.color)}
        ${
          highlight.position === null
            ? html`<span class="muted">Not found in the current article</span>`
            : html`<a href="#highlight-${highlight.id}" aria-describedby="quote-${highlight.id}">Show in article</a>`
        }
        <form method="post" action="/items/${itemId}/highlights/${highlight.id}/delete">
          ${csrfField(view.csrf)}
          <button type="submit" class="danger" aria-describedby="quote-${highlight.id}">Delete highlight</button>
        </form>
      </div>
    </li>`,
    )}
  </ol>`
  }
</section>`
}

/** Highlights on one page of `/highlights`. */
export const HIGHLIGHTS_PAGE_SIZE = 50

/**
 * `/highlights`: all of the person's highlights, newest first, 50 a page, "Older" to the next page by the
 * list's cursor (docs/web.md#highlights). Each links to its mark in its item's reader view.
 */
export function highlightsPage(view: {
  highlights: readonly ListedHighlightDto[]
  nextCursor: string | null
}): SafeHtml {
  return html`<h1>Highlights</h1>
${
  view.highlights.length === 0
    ? html`<p class="notice">No highlights yet. Open an article from your queue, select a passage and press “Highlight”.</p>`
    : html`<ol class="hl-list hl-all">
  ${view.highlights.map((highlight) => {
    const title = highlight.savedItem.title ?? highlight.savedItem.normalizedUrl
    return html`<li class="hl-entry" data-color="${colorOf(highlight.color)}">
    ${quoteOf(highlight)}
    ${noteOf(highlight)}
    <p class="muted hl-source">${swatch(highlight.color)} On <a href="${highlightHref(highlight.savedItemId, highlight.id)}">${title}</a>${highlight.position === null ? ' (not found in the current article)' : ''} · ${timeOf(highlight.createdAt)}</p>
  </li>`
  })}
</ol>`
}
${
  view.nextCursor
    ? html`<p><a class="button secondary" rel="next" href="/highlights?cursor=${encodeURIComponent(view.nextCursor)}">Older</a></p>`
    : null
}`
}
