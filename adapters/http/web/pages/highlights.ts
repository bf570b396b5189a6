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
 * The item's highlights as list items, in text order: each quote, its note and colour, a link to its mark
 * and "Delete highlight", a button of the section's one form (its CSRF token written once, not per
 * highlight). Made of the highlights alone, so the reader view can keep it with the marked article.
 */
export function highlightEntries(itemId: string, highlights: readonly HighlightDto[]): SafeHtml {
  return html`${highlights.map((highlight) => {
    const show =
      highlight.position === null
        ? html`<span class="muted">Not found in the current article</span>`
        : html`<a href="#highlight-${highlight.id}">Show in article</a>`
    // The button is described by its quote, which tells one "Delete highlight" from the next.
    return html`<li class="hl-entry">${quoteOf(highlight)}${noteOf(highlight)}<div class="hl-entry-actions">${swatch(highlight.color)} ${show} <button form="hl-act" formaction="/items/${itemId}/highlights/${highlight.id}/delete" class="danger" aria-describedby="quote-${highlight.id}">Delete highlight</button></div></li>
`
  })}`
}

/**
 * The item's highlights under its article (docs/web.md#reader-view): the list (`highlightEntries`), which
 * works without JavaScript. The reader's script reads a highlight's note from it (by its quote's id) and
 * replaces this section after each change; its help and shortcut come out of hiding then.
 */
export function itemHighlightsSection(view: {
  csrf: string
  itemId: string
  count: number
  entries: SafeHtml
}): SafeHtml {
  const { itemId, count } = view
  const counted = count === 1 ? '1 highlight' : `${count.toLocaleString('en-US')} highlights`
  return html`<section class="highlights" id="highlights" aria-labelledby="highlights-title">
  <h2 id="highlights-title">Highlights</h2>
  <p class="muted">${count === 0 ? 'No highlights yet.' : counted} <a href="/highlights">All highlights</a></p>
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
    count === 0
      ? null
      : html`<form id="hl-act" method="post" action="/items/${itemId}/highlights">${csrfField(view.csrf)}</form>
  <ol class="hl-list">
${view.entries}</ol>`
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
    return html`<li class="hl-entry">
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
