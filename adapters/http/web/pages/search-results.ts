import { parseQuery, QUERY_MAX_CHARS, tokensOf } from '../../../../core/search/query.ts'
import { html, type SafeHtml } from './html.ts'
import type { SearchPage } from '../../../app/search.ts'
import { itemHost, itemTitle } from './item-links.ts'
import { timeOf } from './parts.ts'

export interface SearchView {
  /** The query as typed, kept in the box. */
  q: string
  results: SearchPage['results']
  /** The results that have an article: their title opens the reader view. */
  readable: ReadonlySet<string>
  nextCursor: string | null
  /** Whether this is a page after the first (a cursor was given). */
  later: boolean
  /** Why the query was refused (a ValidationError), shown next to the box with a 400. */
  error: string | null
}

/** The queue page's search box: a plain GET form, so it works without script; a refused query says why beside it. */
export function searchBox(search: SearchView | null): SafeHtml {
  const error = search?.error ?? null
  return html`<form role="search" method="get" action="/" class="search">
  <div class="row">
    <input type="search" name="q" aria-label="Search" placeholder="Search your saved items" maxlength="${QUERY_MAX_CHARS}" value="${search?.q ?? ''}"${error ? html` aria-invalid="true" aria-describedby="search-error"` : null}>
    <button type="submit" class="secondary">Search</button>
  </div>
  ${error ? html`<p class="error" role="alert" id="search-error">${error}</p>` : null}
</form>`
}

/** One word of the query as the index matches it: the last word of a prefix term also matches longer words. */
interface QueryWord {
  token: string
  prefix: boolean
}

function queryWords(q: string): QueryWord[] {
  // Words left out (`-gc`) are in no matching item, so never marked.
  return parseQuery(q)
    .clauses.filter((clause) => !clause.negated)
    .flatMap((clause) => clause.alternatives)
    .flatMap((term) => term.tokens.map((token, i) => ({ token, prefix: term.prefix && i === term.tokens.length - 1 })))
}

/**
 * A snippet as HTML: the text escaped, and each «…» the search put around matched words as `<mark>`.
 * A saved title may hold « and » of its own, so a pair counts as a mark only when it holds a word of the
 * query (the search marks every one in the snippet); the others stay as typed.
 */
export function markedSnippet(snippet: string, q: string): SafeHtml {
  const words = queryWords(q)
  const matches = (text: string): boolean =>
    tokensOf(text).some((t) => words.some((w) => (w.prefix ? t.startsWith(w.token) : t === w.token)))
  const parts: SafeHtml[] = []
  let at = 0
  for (const pair of snippet.matchAll(/«([^«»]+)»/g)) {
    if (!matches(pair[1]!)) continue
    parts.push(html`${snippet.slice(at, pair.index)}<mark>${pair[1]}</mark>`)
    at = pair.index + pair[0].length
  }
  return html`${parts}${snippet.slice(at)}`
}

function resultRow(result: SearchView['results'][number], q: string, readable: boolean): SafeHtml {
  const item = result.savedItem
  const site = item.siteName && item.siteName !== item.host ? html`${item.siteName} · ` : null
  return html`<li class="${item.isRead ? 'read' : 'unread'}">
  <div class="item-main">
    ${itemTitle(item, readable)}
    <div class="muted">${site}${itemHost(item, readable)} · ${item.isRead ? 'Read' : 'Unread'}${item.folder ? html` · ${item.folder.name}` : null} · saved ${timeOf(item.lastSavedAt)}</div>
    ${result.snippet ? html`<p class="snippet">${markedSnippet(result.snippet, q)}</p>` : null}
  </div>
</li>`
}

/** The results of a search in place of the queue list, best first, with a link to the next page. */
export function searchResults(search: SearchView): SafeHtml {
  const clear = html`<a href="/" class="clear-search">Clear search</a>`
  if (search.error) return html`<p>${clear}</p>`
  const moreHref = search.nextCursor
    ? `/?q=${encodeURIComponent(search.q)}&cursor=${encodeURIComponent(search.nextCursor)}`
    : null
  return html`<section class="results" aria-labelledby="results-heading">
<div class="results-head">
  <h2 id="results-heading">Results for “${search.q}”</h2>
  ${clear}
</div>
${
  search.results.length === 0
    ? html`<p class="muted">${search.later ? 'No more results.' : 'No saved items match.'}</p>`
    : html`<ul class="items">${search.results.map((result) => resultRow(result, search.q, search.readable.has(result.savedItem.id)))}</ul>`
}
${moreHref ? html`<p><a class="button secondary" href="${moreHref}" rel="next">More results</a></p>` : null}
</section>`
}
