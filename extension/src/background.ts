// The service worker (Firefox: the event page). Saving has one entry point, saveTab: the toolbar button,
// Alt+Shift+S (`_execute_action`, which presses the button) and the page menu all call it, and so can a
// test, as globalThis.readlater.saveTab(tabId). docs/extension.md#saving
import { ApiError, api, type CaptureResponse, joinUrl, NetworkError, request, type SavedItem } from './api.ts'
import { ext } from './browser.ts'
import { type Attempt, Outbox, type OutboxEntry, type OutboxStore, outcomeOf, type SendOutcome } from './outbox.ts'
import {
  isConnectionChange,
  loadConnection,
  loadResult,
  markNeedsReconnect,
  resultKey,
  saveResult,
  type TabResult,
  updateResultItem,
} from './settings.ts'
import { inTurn } from './in-turn.ts'
import { captureBody } from './size-rule.ts'

const MENU_PAGE = 'readlater-save-page'
const MENU_LINK = 'readlater-save-link'
const ALARM = 'readlater-outbox'
const OUTBOX_PREFIX = 'outbox:'
const BADGE_SAVED = '✓'

/** Every write of a tab's result, this worker's and the popup's (by message), in one queue (in-turn.ts). */
const resultTurn = inTurn()

// ---- The outbox, kept in storage.local (one key per capture: updating one never rewrites another's page)

const outboxStore: OutboxStore = {
  async all() {
    const everything = await ext.storage.local.get(null)
    return Object.entries(everything)
      .filter(([key]) => key.startsWith(OUTBOX_PREFIX))
      .map(([, entry]) => entry as OutboxEntry)
  },
  async get(key) {
    const name = OUTBOX_PREFIX + key
    return (await ext.storage.local.get(name))[name] as OutboxEntry | undefined
  },
  put: (entry) => ext.storage.local.set({ [OUTBOX_PREFIX + entry.key]: entry }),
  delete: (key) => ext.storage.local.remove(OUTBOX_PREFIX + key),
}

async function sendCapture(entry: OutboxEntry): Promise<SendOutcome> {
  const connection = await loadConnection()
  if (!connection) return { kind: 'unauthorized', message: 'This browser is not connected to Readlater' }
  try {
    const answer = await request(joinUrl(connection.base, '/v1/captures'), {
      method: 'POST',
      apiKey: connection.apiKey,
      body: entry.body,
      idempotencyKey: entry.key,
      timeoutMs: 120_000,
    })
    return outcomeOf(answer.status, answer.body, answer.headers.get('retry-after'), Date.now())
  } catch (error) {
    return { kind: 'retry', reason: error instanceof NetworkError ? 'the server did not answer' : String(error) }
  }
}

const outbox = new Outbox(outboxStore, () => Date.now(), sendCapture)

// ---- Badge and popup

async function showSaved(tabId: number): Promise<void> {
  try {
    await ext.action.setBadgeBackgroundColor({ tabId, color: '#15803d' })
    await ext.action.setBadgeText({ tabId, text: BADGE_SAVED })
  } catch {
    // The tab is gone.
  }
}

/**
 * Opens the popup on the tab's last result. Firefox opens a popup only from inside the handler of the
 * person's click, shortcut or menu, before anything is awaited, so both calls are made synchronously here
 * (in order: the tab's popup is set before it is opened) and only awaited afterwards. The popup is set for
 * this one opening and cleared again, so the next click still reaches action.onClicked and saves: by the
 * popup itself once it shows, and here once openPopup has settled or after 2 s at most (openPopup may
 * wait for a window to show it in).
 */
function openResultPopup(tabId: number): void {
  const set = ext.action.setPopup({ tabId, popup: `popup.html?tab=${tabId}` })
  const open = ext.action.openPopup()
  const settled = Promise.allSettled([set, open])
  void Promise.race([settled, new Promise((done) => setTimeout(done, 2000))]).then(() => clearPopup(tabId))
}

function clearPopup(tabId: number): Promise<void> {
  return ext.action.setPopup({ tabId, popup: '' }).catch(() => {})
}

// ---- Saving

/** The page as the browser rendered it, or null where scripts may not run (the store, a PDF, chrome://). */
async function renderedHtml(tabId: number): Promise<string | null> {
  try {
    const [frame] = await ext.scripting.executeScript({
      target: { tabId },
      func: () => document.documentElement.outerHTML,
    })
    return typeof frame?.result === 'string' ? frame.result : null
  } catch {
    return null
  }
}

/** Saves the tab's page: its URL with the rendered HTML when the body fits (size-rule.ts), else the URL alone. */
async function saveTab(tabId: number): Promise<TabResult> {
  const saving = resultTurn(() => saveResult(tabId, { state: 'saving', url: null }))
  openResultPopup(tabId)
  await saving
  let url: string | undefined
  try {
    url = (await ext.tabs.get(tabId)).url
  } catch {
    return report(tabId, null, { state: 'error', url: null, message: 'This tab is gone.' })
  }
  if (!url)
    return report(tabId, null, {
      state: 'error',
      url: null,
      message: 'Readlater cannot see this tab’s address. Press the Readlater button or Alt+Shift+S on the page.',
    })
  if (!/^https?:/i.test(url))
    return report(tabId, null, { state: 'error', url, message: 'Only web pages (http and https) can be saved.' })
  void markLooked(tabId, url)
  const html = await renderedHtml(tabId)
  return capture(tabId, url, captureBody({ url }, html), true)
}

/** Saves a link's URL alone (the link menu); the result shows in that tab's popup. */
async function saveLink(url: string, tabId: number | null): Promise<TabResult> {
  if (tabId !== null) {
    const saving = resultTurn(() => saveResult(tabId, { state: 'saving', url }))
    openResultPopup(tabId)
    await saving
  }
  if (!/^https?:/i.test(url))
    return report(tabId, null, { state: 'error', url, message: 'Only web links (http and https) can be saved.' })
  return capture(tabId, url, captureBody({ url }, null), false)
}

async function capture(
  tabId: number | null,
  url: string,
  body: { body: string; withHtml: boolean },
  page: boolean,
): Promise<TabResult> {
  if (!(await loadConnection())) return report(tabId, null, { state: 'not-connected' })
  let entry: OutboxEntry
  try {
    entry = await outbox.add({ ...body, url, tabId, page })
  } catch {
    // storage.local is full (Chromium allows 10 MB): keep the URL alone rather than lose the capture.
    try {
      entry = await outbox.add({ ...captureBody({ url }, null), url, tabId, page })
    } catch {
      return report(tabId, null, { state: 'error', url, message: 'The browser’s storage for Readlater is full.' })
    }
  }
  const attempt = await outbox.attempt(entry.key)
  const result = attempt ? await settle(attempt, false) : null
  return result ?? (await loadResult(tabId ?? -1)) ?? { state: 'saving', url }
}

/** Writes a tab's result (unless a newer save of that tab has replaced the one this is about). */
async function report(tabId: number | null, key: string | null, result: TabResult): Promise<TabResult> {
  if (tabId === null) return result
  return resultTurn(async () => {
    if (key !== null) {
      // A capture's later outcome (a retry) replaces only the result it was shown as, or a save under way.
      const current = await loadResult(tabId)
      if (!current || (current.state !== 'saving' && !('key' in current && current.key === key))) return result
    }
    await saveResult(tabId, result)
    return result
  })
}

/** What an attempt means for the tab, the badge, the reconnect notice and the rest of the outbox. */
async function settle({ entry, outcome }: Attempt, inFlush: boolean): Promise<TabResult | null> {
  const connection = await loadConnection()
  let result: TabResult
  switch (outcome.kind) {
    case 'busy':
    case 'gone':
      return null
    case 'sent': {
      const { savedItem } = outcome.body as CaptureResponse
      result = {
        state: outcome.status === 201 ? 'saved' : 'already',
        key: entry.key,
        url: entry.url,
        item: savedItem,
        app: connection?.app ?? '',
        withHtml: entry.withHtml,
      }
      if (entry.page && entry.tabId !== null && (await tabShows(entry.tabId, entry.url))) await showSaved(entry.tabId)
      succeeded(inFlush)
      break
    }
    case 'retry':
      result = { state: 'queued', key: entry.key, url: entry.url, reason: outcome.reason }
      break
    case 'unauthorized':
      if (connection) await markNeedsReconnect()
      result = { state: 'reconnect', key: entry.key, url: entry.url }
      break
    case 'rejected':
      if (outcome.status === 413 && entry.withHtml) {
        // A server with a lower limit than ours: the URL alone, as a new capture.
        const again = await outbox.add({
          ...captureBody({ url: entry.url }, null),
          url: entry.url,
          tabId: entry.tabId,
          page: entry.page,
        })
        const attempt = await outbox.attempt(again.key)
        return attempt ? settle(attempt, inFlush) : null
      }
      result = { state: 'error', url: entry.url, message: `Readlater refused it: ${outcome.message}` }
      break
  }
  await scheduleRetry()
  return report(entry.tabId, entry.key, result)
}

/** Whether the tab still shows that URL (when the browser lets us see it), for the badge of a late success. */
async function tabShows(tabId: number, url: string): Promise<boolean> {
  try {
    const tab = await ext.tabs.get(tabId)
    return tab.url === undefined || tab.url === url
  } catch {
    return false
  }
}

// ---- Retries (docs/extension.md#retries): an alarm, because a sleeping worker runs no timer

let flushing: Promise<void> | null = null
let flushAgain: 'due' | 'now' | null = null

/** Sends kept captures; one flush at a time, and one more right after when asked for meanwhile. */
function flush(mode: 'due' | 'now'): Promise<void> {
  if (flushing) {
    flushAgain = flushAgain === 'now' || mode === 'now' ? 'now' : 'due'
    return flushing
  }
  flushing = (async () => {
    if (!(await loadConnection())) return
    let next: 'due' | 'now' | null = mode
    while (next) {
      flushAgain = null
      for (const attempt of await outbox.flush(next)) await settle(attempt, true)
      next = flushAgain
    }
  })()
    .catch(() => {})
    .finally(() => {
      flushing = null
      void scheduleRetry()
    })
  return flushing
}

/** After any request that succeeded, the server is there: everything kept goes now. */
function succeeded(inFlush: boolean): void {
  if (inFlush) flushAgain = 'now'
  else void flush('now')
}

async function scheduleRetry(): Promise<void> {
  const at = await outbox.nextWake()
  if (at === null) await ext.alarms.clear(ALARM)
  else await ext.alarms.create(ALARM, { when: Math.max(at, Date.now() + 1000) })
}

// ---- The badge for pages already saved (docs/extension.md#the-badge)

const lookedKey = (tabId: number) => `looked:${tabId}`

/** Notes that the tab's current page load is known (saved from, or looked up). */
async function markLooked(tabId: number, url: string): Promise<boolean> {
  const key = lookedKey(tabId)
  if ((await ext.storage.session.get(key))[key] === url) return false
  await ext.storage.session.set({ [key]: url })
  return true
}

/** Once per page load whose URL the browser lets us see: is it saved? Then the badge says so. */
async function lookupTab(tabId: number, url: string): Promise<boolean | null> {
  if (!/^https?:/i.test(url)) return null
  const connection = await loadConnection()
  // Readlater's own pages (the extension may always see them) are not what one saves.
  const origin = new URL(url).origin
  if (!connection || origin === new URL(connection.app).origin || origin === new URL(connection.base).origin)
    return null
  if (!(await markLooked(tabId, url))) return null
  try {
    const item = await api.lookup(connection, url)
    succeeded(false)
    if (item) await showSaved(tabId)
    return item !== null
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) await markNeedsReconnect()
    return null
  }
}

// ---- Wiring

async function onMenuClick(info: chrome.contextMenus.OnClickData, tab?: chrome.tabs.Tab): Promise<TabResult | null> {
  const tabId = tab?.id ?? null
  if (info.menuItemId === MENU_PAGE && tabId !== null) return saveTab(tabId)
  if (info.menuItemId === MENU_LINK && info.linkUrl) {
    if (tabId !== null && info.pageUrl) void lookupTab(tabId, info.pageUrl)
    return saveLink(info.linkUrl, tabId)
  }
  return null
}

ext.action.onClicked.addListener((tab) => {
  if (tab.id !== undefined) void saveTab(tab.id)
})

ext.contextMenus.onClicked.addListener((info, tab) => {
  void onMenuClick(info, tab)
})

ext.runtime.onInstalled.addListener(async () => {
  await ext.contextMenus.removeAll()
  ext.contextMenus.create({ id: MENU_PAGE, title: 'Save to Readlater', contexts: ['page'] })
  ext.contextMenus.create({ id: MENU_LINK, title: 'Save link to Readlater', contexts: ['link'] })
})

ext.tabs.onUpdated.addListener((tabId, change, tab) => {
  // A new page load: the browser has reset its badge, and it may be looked up once.
  if (change.status === 'loading') void ext.storage.session.remove(lookedKey(tabId))
  if (change.status === 'complete' && tab.url) void lookupTab(tabId, tab.url)
})

ext.tabs.onRemoved.addListener((tabId) => {
  void ext.storage.session.remove([resultKey(tabId), lookedKey(tabId)])
})

ext.alarms.onAlarm.addListener((alarm) => {
  if (alarm.name === ALARM) void flush('due')
})

ext.runtime.onStartup.addListener(() => {
  void flush('now')
})

// Connected again (or for the first time): what a 401 held goes now.
ext.storage.onChanged.addListener((changes, area) => {
  if (area !== 'local' || !isConnectionChange(changes) || !changes.connection?.newValue) return
  void outbox.release().then(() => flush('now'))
})

ext.runtime.onMessage.addListener((message: { type?: string }, _sender, reply) => {
  if (message?.type === 'retry-now' || message?.type === 'succeeded') {
    void flush('now').then(() => reply({ ok: true }))
    return true
  }
  if (message?.type === 'result-item') {
    // The popup's newer copy of the item it shows, kept only while that capture is still the tab's result.
    const { tabId, key, item } = message as unknown as { tabId: number; key: string; item: SavedItem }
    void resultTurn(() => updateResultItem(tabId, key, item)).then(() => reply({ ok: true }))
    return true
  }
  if (message?.type === 'clear-outbox') {
    void outbox.clear().then((count) => scheduleRetry().then(() => reply({ count })))
    return true
  }
  if (message?.type === 'outbox') {
    void outbox.entries().then((entries) => reply({ count: entries.length }))
    return true
  }
  return false
})

/** Sends every kept capture now (not those a 401 holds or a Retry-After delays) and says what is left. */
async function retryNow(): Promise<{ key: string; url: string; attempts: number; held: boolean }[]> {
  await flush('now')
  return (await outbox.entries()).map(({ key, url, attempts, held }) => ({ key, url, attempts, held }))
}

// What tests (and the curious, from the worker's console) can call.
Object.assign(globalThis, { readlater: { saveTab, saveLink, onMenuClick, retryNow, lookupTab } })

// The worker was woken for some event: whatever is due goes too.
void flush('due')
