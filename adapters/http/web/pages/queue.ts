import type { Folder, SavedItem } from '../../../../core/types.ts'
import { html, type SafeHtml } from '../html.ts'
import type { SearchView } from '../search.ts'
import { itemHost, itemTitle } from './item-links.ts'
import { csrfField, errorNotice, timeOf } from './parts.ts'
import { searchBox, searchResults } from './search-results.ts'

export interface QueueView {
  csrf: string
  items: SavedItem[]
  folders: Folder[]
  /** '' for every item, 'none' for items in no folder, or a folder id. */
  folder: string
  /** The items that have an article: their title opens the reader view instead of the original. */
  readable: ReadonlySet<string>
  /** More items exist than are shown. */
  truncated: boolean
  notice?: string | null
  capture?: { url: string; error: string } | null
  /** A search (`?q=`): its results replace the list and the folder filter (search has `folder:`). */
  search?: SearchView | null
}

function itemRow(csrf: string, folder: string, readable: boolean, item: SavedItem): SafeHtml {
  return html`<li class="${item.isRead ? 'read' : 'unread'}">
  <div class="item-main">
    ${itemTitle(item, readable)}
    <div class="muted">${itemHost(item, readable)} · ${item.isRead ? 'Read' : 'Unread'}${item.folder ? html` · ${item.folder.name}` : null} · saved ${timeOf(item.lastSavedAt)}</div>
  </div>
  <form method="post" action="/queue/items/${item.id}/read-state">
    ${csrfField(csrf)}
    <input type="hidden" name="isRead" value="${item.isRead ? 'false' : 'true'}">
    <input type="hidden" name="folder" value="${folder}">
    <button type="submit" class="secondary">${item.isRead ? 'Mark unread' : 'Mark read'}</button>
  </form>
</li>`
}

/**
 * The signed-in person's queue: a capture field, a search box, a folder filter and the items, newest first
 * (beyond the spec); or, for a search, its results.
 */
export function queuePage(view: QueueView): SafeHtml {
  return html`<h1>Your queue</h1>
${view.notice ? html`<p class="notice" role="status">${view.notice}</p>` : null}
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
${view.search ? searchResults(view.search) : itemList(view)}`
}

function itemList(view: QueueView): SafeHtml {
  return html`<form method="get" action="/" class="filter">
  <label for="folder-filter">Folder</label>
  <div class="row">
    <select id="folder-filter" name="folder">
      <option value=""${view.folder === '' ? html` selected` : null}>All items</option>
      <option value="none"${view.folder === 'none' ? html` selected` : null}>No folder</option>
      ${view.folders.map((f) => html`<option value="${f.id}"${view.folder === f.id ? html` selected` : null}>${f.name}</option>`)}
    </select>
    <button type="submit" class="secondary">Show</button>
  </div>
</form>
${
  view.items.length === 0
    ? html`<p class="muted">Nothing here yet. Save a URL above, or from any connected client.</p>`
    : html`<ul class="items">${view.items.map((item) => itemRow(view.csrf, view.folder, view.readable.has(item.id), item))}</ul>`
}
${view.truncated ? html`<p class="muted">Showing the newest ${view.items.length} items.</p>` : null}`
}
