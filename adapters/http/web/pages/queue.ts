import { readingMinutes } from '../../../../core/reading/reading-time.ts'
import type { Folder, SavedItem, Sort } from '../../../../core/types.ts'
import type { FolderCounts } from '../../../storage/queue-counts.ts'
import { html, type SafeHtml } from './html.ts'
import type { SearchView } from './search-results.ts'
import { csrfField, errorNotice, timeOf } from './parts.ts'
import { searchBox, searchResults } from './search-results.ts'
import { type QueueFilters, queueHref, READ_STATES, SORT_LABELS, STATE_LABELS } from './queue-filters.ts'

export interface QueueCard {
  item: SavedItem
  /** The article's word count when the item has one (its title then opens the reader view). */
  words: number | null
}

export interface QueueView {
  csrf: string
  cards: QueueCard[]
  folders: Folder[]
  counts: FolderCounts
  filters: QueueFilters
  /** The next page's cursor, while more items follow. */
  nextCursor: string | null
  notice?: string | null
  /** An item just deleted from this page: the notice offers "Undo". */
  undo?: { id: string; label: string } | null
  capture?: { url: string; error: string } | null
  /** A search (`?q=`): its results replace the list (search has `folder:` and `is:` of its own). */
  search?: SearchView | null
}

// Favicons and images load only over https: (docs/web.md#queue): an http: one is not shown.
const isHttps = (url: string | null): url is string => url !== null && /^https:\/\//i.test(url)

function favicon(item: SavedItem): SafeHtml {
  const light = [item.faviconLightUrl, item.faviconUrl, item.faviconDarkUrl].find(isHttps)
  if (!light) return html`<span class="favicon placeholder"></span>`
  const dark = isHttps(item.faviconDarkUrl) && item.faviconDarkUrl !== light ? item.faviconDarkUrl : null
  const img = html`<img class="favicon" src="${light}" alt="" width="20" height="20" loading="lazy">`
  // A dark variant only when the site has one: a bare <img> otherwise (most cards), which is smaller.
  return dark ? html`<picture><source media="(prefers-color-scheme: dark)" srcset="${dark}">${img}</picture>` : img
}

// A card's buttons belong to the page's one action form (`form="act"`) and each posts to its own
// action (`formaction`): the CSRF token and the return address are written once per page, not per card,
// so 50 cards stay small (docs/benchmarks.md#web-queue).
function card(back: string, { item, words }: QueueCard): SafeHtml {
  const label = item.title ?? item.originalUrl
  const siteName = item.siteName ?? item.host
  // With the title leading to the reader view, the site links to the original, one click away.
  const site =
    words !== null && /^https?:\/\//i.test(item.originalUrl)
      ? html`<a class="original" href="${item.originalUrl}" target="_blank" rel="noreferrer">${siteName}</a>`
      : html`${siteName}`
  const action = `/queue/items/${encodeURIComponent(item.id)}/`
  return html`<li class="item-card ${item.isRead ? 'read' : 'unread'}">
<div class="card-head">${favicon(item)}<div class="card-text"><a class="title" href="${action}open"${words === null ? html` target="_blank" rel="noreferrer"` : null}>${label}</a>
<p class="meta">${site}${words !== null ? html` · ${readingMinutes(words)} min read` : null}${item.folder ? html` · <span class="folder-name">${item.folder.name}</span>` : null} · saved ${timeOf(item.lastSavedAt)}${item.isRead ? ' · Read' : ''}</p></div></div>
${item.previewSummary ? html`<p class="summary">${item.previewSummary}</p>` : null}${item.tags.length > 0 ? html`<ul class="tags">${item.tags.map((tag) => html`<li>${tag}</li>`)}</ul>` : null}
<div class="card-actions"><button form="act" formaction="${action}read-state" name="isRead" value="${item.isRead ? 'false' : 'true'}">${item.isRead ? 'Mark unread' : 'Mark read'}</button>
<a href="${action}move?return=${encodeURIComponent(back)}">Move to folder</a>
<button form="act" formaction="${action}delete" class="danger">Delete</button></div>
</li>`
}

/** The page "Move to folder" leads to: the item's folders as a choice, then back to the queue. */
export function movePage(view: { csrf: string; item: SavedItem; folders: Folder[]; back: string }): SafeHtml {
  const { item } = view
  return html`<h1>Move to folder</h1>
<p class="meta-title">${item.title ?? item.originalUrl}</p>
<form method="post" action="/queue/items/${encodeURIComponent(item.id)}/folder" class="card narrow">
  ${csrfField(view.csrf)}<input type="hidden" name="return" value="${view.back}">
  <fieldset><legend>Folder</legend>
    <label><input type="radio" name="folderId" value=""${item.folder === null ? html` checked` : null}> No folder</label>
    ${view.folders.map((f) => html`<label><input type="radio" name="folderId" value="${f.id}"${item.folder?.id === f.id ? html` checked` : null}> ${f.name}</label>`)}
  </fieldset>
  <div class="actions"><button type="submit">Move</button><a class="button secondary" href="${view.back}">Cancel</a></div>
</form>
${view.folders.length === 0 ? html`<p class="muted">You have no folders yet: create one under “Manage folders” on the queue.</p>` : null}`
}

function folderNav(view: QueueView): SafeHtml {
  const { filters, counts } = view
  const link = (folder: string, name: string, count: number) =>
    html`<li><a href="${queueHref({ ...filters, folder })}"${filters.folder === folder ? html` aria-current="page"` : null}>${name} <span class="count">${count}</span></a></li>`
  return html`<nav aria-label="Folders" class="folders">
  <h2>Folders</h2>
  <ul>
    ${link('', 'All folders', counts.all)}
    ${link('none', 'No folder', counts.byFolder.get(null) ?? 0)}
    ${view.folders.map((f) => link(f.id, f.name, counts.byFolder.get(f.id) ?? 0))}
  </ul>
  <p class="manage"><a href="/queue/folders">Manage folders</a></p>
</nav>`
}

function filterBar(filters: QueueFilters): SafeHtml {
  return html`<div class="filter-bar">
  <nav aria-label="Read state"><ul class="tabs">${READ_STATES.map(
    (state) =>
      html`<li><a href="${queueHref({ ...filters, state })}"${filters.state === state ? html` aria-current="page"` : null}>${STATE_LABELS[state]}</a></li>`,
  )}</ul></nav>
  <nav aria-label="Sort"><ul class="tabs">${(Object.keys(SORT_LABELS) as Sort[]).map(
    (sort) =>
      html`<li><a href="${queueHref({ ...filters, sort })}"${filters.sort === sort ? html` aria-current="page"` : null}>${SORT_LABELS[sort]}</a></li>`,
  )}</ul></nav>
</div>`
}

/**
 * "Download EPUB": the current view (its folder, unread or all) as a book for an e-reader
 * (docs/import-export.md#epub), through Settings' export route. The "Read" view has none: a book of what
 * was read is "All" (docs/web.md#queue).
 */
function epubLink(filters: QueueFilters): SafeHtml | null {
  if (filters.state === 'read') return null
  const params = new URLSearchParams({ format: 'epub', state: filters.state })
  if (filters.folder !== '') params.set('folder', filters.folder)
  return html`<p class="queue-download"><a href="/settings/export?${params.toString()}" download>Download EPUB</a></p>`
}

const SHORTCUTS = html`<details class="shortcuts">
  <summary>Keyboard shortcuts</summary>
  <dl>
    <dt><kbd>j</kbd> / <kbd>k</kbd></dt><dd>next / previous item</dd>
    <dt><kbd>o</kbd></dt><dd>open the item</dd>
    <dt><kbd>m</kbd></dt><dd>mark read / unread</dd>
    <dt><kbd>/</kbd></dt><dd>search</dd>
  </dl>
</details>`

/**
 * The signed-in person's queue (docs/web.md#queue): capture, search, folders with counts, the read-state
 * filters and sorts, the items as cards with their actions, and paging; or, for a search, its results.
 */
export function queuePage(view: QueueView): SafeHtml {
  const back = queueHref(view.filters)
  return html`<h1>Your queue</h1>
<div id="queue-status" role="status">${
    view.undo
      ? html`<div class="notice undo"><span>Deleted “${view.undo.label}”.</span>
  <form method="post" action="/queue/items/${view.undo.id}/restore" class="inline">${csrfField(view.csrf)}<input type="hidden" name="return" value="${back}"><button type="submit" class="secondary">Undo</button></form></div>`
      : view.notice
        ? html`<p class="notice">${view.notice}</p>`
        : null
  }</div>
<form method="post" action="/queue/capture" class="card capture">
  ${errorNotice(view.capture?.error)}
  ${csrfField(view.csrf)}
  <label for="capture-url">URL</label>
  <div class="row">
    <input id="capture-url" name="url" type="url" required placeholder="https://…" value="${view.capture?.url ?? ''}">
    <button type="submit">Save</button>
  </div>
</form>
${searchBox(view.search ?? null)}
${view.search ? searchResults(view.search) : queueBody(view, back)}
${SHORTCUTS}`
}

function queueBody(view: QueueView, back: string): SafeHtml {
  const empty =
    view.filters.state === 'unread' && view.counts.all > 0
      ? 'Nothing unread here. Well done.'
      : 'Nothing here yet. Save a URL above, or from any connected client.'
  return html`<div class="queue-layout">
${folderNav(view)}
<section class="queue-list" aria-label="Saved items">
  ${filterBar(view.filters)}
  ${epubLink(view.filters)}
  ${
    view.cards.length === 0
      ? html`<p class="muted">${empty}</p>`
      : html`<form id="act" method="post" action="/queue/items">${csrfField(view.csrf)}<input type="hidden" name="return" value="${back}"></form>
<ul class="items cards">${view.cards.map((c) => card(back, c))}</ul>`
  }
  ${view.nextCursor ? html`<p><a class="button secondary" rel="next" href="${queueHref(view.filters, view.nextCursor)}">More items</a></p>` : null}
</section>
</div>`
}
