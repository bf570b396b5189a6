// The popup (docs/extension.md#the-popup): a view of the last save made from one tab (`popup.html?tab=<id>`),
// kept by the service worker in storage.session, updated live while a save or a retry goes on. From here
// the person files the item in a folder, tags it, marks it read or opens it in Readlater.
import { ApiError, api, type Folder, itemUrl, NetworkError, type SavedItem, TAGS } from './api.ts'
import { ext } from './browser.ts'
import { h } from './dom.ts'
import {
  type Connection,
  loadConnection,
  loadResult,
  markNeedsReconnect,
  resultKey,
  type TabResult,
} from './settings.ts'

const root = document.getElementById('app')!

async function tabOfPopup(): Promise<number | null> {
  const param = Number(new URLSearchParams(location.search).get('tab'))
  if (Number.isInteger(param) && param > 0) return param
  const [tab] = await ext.tabs.query({ active: true, currentWindow: true })
  return tab?.id ?? null
}

const openOptions = () => h('button', { type: 'button', class: 'secondary', 'data-action': 'options' }, 'Open options')

function hostOf(url: string | null): string {
  try {
    return url ? new URL(url).host : ''
  } catch {
    return ''
  }
}

function messageOf(error: unknown): string {
  if (error instanceof NetworkError) return 'Readlater could not be reached.'
  if (error instanceof ApiError) return error.message
  return String(error)
}

/** Shown when the server no longer takes the key (401): revoked in its settings, or the account is gone. */
function reconnectView(): HTMLElement[] {
  return [
    h('h1', {}, 'Reconnect to Readlater'),
    h(
      'p',
      {},
      'Readlater no longer accepts this browser’s key (it may have been revoked). Open the options and reconnect; pages kept meanwhile are sent then.',
    ),
    openOptions(),
  ]
}

/**
 * Keeps the popup's newer copy of the item with the tab's result, for the next opening. The worker writes it,
 * in turn with its own writes of results (in-turn.ts): written from here, it once put an old result back
 * over a new save's "Saving…".
 */
function keepItem(tabId: number, key: string, item: SavedItem): void {
  void ext.runtime.sendMessage({ type: 'result-item', tabId, key, item }).catch(() => {})
}

function savedView(
  result: Extract<TabResult, { state: 'saved' | 'already' }>,
  connection: Connection,
  tabId: number,
): HTMLElement[] {
  let item: SavedItem = result.item
  const status = h('p', { class: 'status', role: 'status', 'aria-live': 'polite' })
  const report = (error: unknown) => {
    if (error instanceof ApiError && error.status === 401) {
      void markNeedsReconnect()
      root.replaceChildren(...reconnectView())
      return
    }
    status.textContent = messageOf(error)
    status.classList.add('error')
  }
  const done = (updated: SavedItem, text: string) => {
    item = updated
    // Kept with the tab's result (same capture, so the view is not redrawn), for the next opening.
    keepItem(tabId, result.key, item)
    status.textContent = text
    status.classList.remove('error')
    void ext.runtime.sendMessage({ type: 'succeeded' }).catch(() => {})
  }

  // Folder: "No folder" and the person's folders; a change files the item at once.
  const select = h('select', { id: 'folder', name: 'folder' }, h('option', { value: '' }, 'No folder'))
  const addFolder = (folder: Folder) => select.append(h('option', { value: folder.id }, folder.name))
  if (item.folder) addFolder(item.folder)
  select.value = item.folder?.id ?? ''
  void api
    .folders(connection)
    .then((folders) => {
      const current = select.value
      select.replaceChildren(h('option', { value: '' }, 'No folder'))
      for (const folder of folders) addFolder(folder)
      if (item.folder && !folders.some((f) => f.id === item.folder!.id)) addFolder(item.folder)
      select.value = current
    })
    .catch(report)
  select.addEventListener('change', () => {
    const folderId = select.value || null
    api.setFolder(connection, item.id, folderId).then(
      (updated) =>
        done(updated, folderId ? `Moved to ${updated.folder?.name ?? 'the folder'}.` : 'Taken out of its folder.'),
      (error) => {
        select.value = item.folder?.id ?? ''
        report(error)
      },
    )
  })

  // Tags: the seven, as checkboxes; each change sends the whole set (PUT …/tags replaces it), one at a time.
  const boxes = TAGS.map((tag) =>
    h('input', { type: 'checkbox', name: 'tag', value: tag, checked: item.tags.includes(tag) }),
  )
  let queue: Promise<unknown> = Promise.resolve()
  for (const box of boxes)
    box.addEventListener('change', () => {
      queue = queue.then(async () => {
        const tags = boxes.filter((b) => b.checked).map((b) => b.value)
        try {
          done(await api.setTags(connection, item.id, tags), tags.length ? `Tagged ${tags.join(', ')}.` : 'No tags.')
        } catch (error) {
          for (const b of boxes) b.checked = item.tags.includes(b.value)
          report(error)
        }
      })
    })

  const read = h(
    'button',
    { type: 'button', id: 'mark-read', disabled: item.isRead },
    item.isRead ? 'Read' : 'Mark read',
  )
  read.addEventListener('click', () => {
    read.disabled = true
    api.markRead(connection, item.id).then(
      (updated) => {
        read.textContent = 'Read'
        done(updated, 'Marked read.')
      },
      (error) => {
        read.disabled = false
        report(error)
      },
    )
  })

  // The item as it is now: its title once the page is read (a second or so after a first save), and
  // folder, tags and read state as set elsewhere, unless the person has changed them here meanwhile.
  const title = h('p', { class: 'title' }, item.title || result.url)
  let touched = false
  for (const control of [select, read, ...boxes]) control.addEventListener('change', () => (touched = true))
  read.addEventListener('click', () => (touched = true))
  const refresh = async (tries: number): Promise<void> => {
    let fresh: SavedItem | null
    try {
      fresh = await api.lookup(connection, result.url)
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) report(error)
      return
    }
    if (!fresh || fresh.id !== item.id) return
    if (fresh.title) title.textContent = fresh.title
    if (!touched) {
      item = fresh
      if (item.folder && ![...select.options].some((option) => option.value === item.folder!.id)) addFolder(item.folder)
      select.value = item.folder?.id ?? ''
      for (const box of boxes) box.checked = item.tags.includes(box.value)
      read.disabled = item.isRead
      read.textContent = item.isRead ? 'Read' : 'Mark read'
      keepItem(tabId, result.key, item)
    }
    if (!fresh.title && fresh.enrichmentStatus === 'pending' && tries > 1)
      setTimeout(() => void refresh(tries - 1), 1000)
  }
  void refresh(10)

  return [
    h('h1', {}, result.state === 'saved' ? 'Saved' : 'Already saved'),
    title,
    h('p', { class: 'muted host' }, hostOf(result.url)),
    h('label', { for: 'folder' }, 'Folder'),
    select,
    h(
      'fieldset',
      {},
      h('legend', {}, 'Tags'),
      h('div', { class: 'tags' }, ...boxes.map((box, i) => h('label', {}, box, TAGS[i]!))),
    ),
    h(
      'div',
      { class: 'actions' },
      read,
      h(
        'a',
        {
          href: itemUrl({ app: result.app || connection.app }, item.id),
          target: '_blank',
          rel: 'noopener',
          id: 'open',
        },
        'Open in Readlater',
      ),
    ),
    status,
  ]
}

function view(result: TabResult | null, connection: Connection | null, tabId: number): HTMLElement[] {
  if (!result)
    return [
      h('h1', {}, 'Readlater'),
      h('p', {}, 'Nothing was saved from this tab yet. Press the Readlater button or Alt+Shift+S to save it.'),
    ]
  switch (result.state) {
    case 'saving':
      return [h('h1', {}, 'Saving…'), h('p', { class: 'muted host' }, hostOf(result.url))]
    case 'saved':
    case 'already':
      return connection ? savedView(result, connection, tabId) : view({ state: 'not-connected' }, null, tabId)
    case 'queued': {
      const retry = h('button', { type: 'button', class: 'secondary', 'data-action': 'retry' }, 'Retry now')
      return [
        h('h1', {}, 'Queued, will retry'),
        h('p', { class: 'title' }, result.url),
        h(
          'p',
          {},
          `Not saved yet: ${result.reason}. It is kept and sent again by itself (sooner once Readlater answers again); it will not be saved twice.`,
        ),
        retry,
      ]
    }
    case 'reconnect':
      return reconnectView()
    case 'not-connected':
      return [
        h('h1', {}, 'Connect to Readlater'),
        h('p', {}, 'Connect this browser to your Readlater server in the options first.'),
        openOptions(),
      ]
    case 'error': {
      const nodes: HTMLElement[] = [h('h1', {}, 'Not saved'), h('p', { class: 'error' }, result.message)]
      if (result.url) nodes.push(h('p', { class: 'muted host' }, hostOf(result.url)))
      return nodes
    }
  }
}

/** What the view is about: a new state or another capture replaces it, the popup's own edits do not. */
const identity = (result: TabResult | null) =>
  result ? `${result.state}:${'key' in result ? result.key : ''}` : 'none'

async function main(): Promise<void> {
  const tabId = await tabOfPopup()
  let shown = ''
  const render = async (result: TabResult | null) => {
    const id = identity(result)
    if (id === shown) return
    shown = id
    root.replaceChildren(...view(result, await loadConnection(), tabId ?? -1))
    root.querySelector<HTMLElement>('select, button, a')?.focus()
  }
  root.addEventListener('click', (event) => {
    const action = (event.target as HTMLElement).closest('[data-action]')?.getAttribute('data-action')
    if (action === 'options') void ext.runtime.openOptionsPage()
    if (action === 'retry') void ext.runtime.sendMessage({ type: 'retry-now' })
  })
  if (tabId === null) return void render(null)
  // Shown: the next click on the button saves again instead of opening this (see openResultPopup).
  void ext.action.setPopup({ tabId, popup: '' }).catch(() => {})
  ext.storage.onChanged.addListener((changes, area) => {
    const change = changes[resultKey(tabId)]
    if (area === 'session' && change) void render((change.newValue as TabResult | undefined) ?? null)
  })
  await render(await loadResult(tabId))
  document.body.dataset.ready = 'true'
}

void main()
