// What the extension keeps (docs/extension.md#privacy): the connection in storage.local (this browser
// profile only, never synced), each tab's last result in storage.session (memory, gone with the browser).
import type { SavedItem } from './api.ts'
import { ext } from './browser.ts'

export interface Connection {
  /** The address the person typed: the web app (`APP_URL`), where /connect and the reader view are. */
  app: string
  /** The API's base (`BASE_URL`), from the server's /.well-known/oauth-protected-resource. */
  base: string
  /** The extension's own key (`rlk_…`) from the connect flow. */
  apiKey: string
  label: string
  scopes: string[]
  email: string | null
}

const CONNECTION = 'connection'
/** Set when the server answered 401 to the key: the popup and the options page ask to reconnect. */
const RECONNECT = 'reconnect'

export async function loadConnection(): Promise<Connection | null> {
  const stored = (await ext.storage.local.get(CONNECTION))[CONNECTION] as Connection | undefined
  return stored?.apiKey ? stored : null
}

export async function saveConnection(connection: Connection): Promise<void> {
  await ext.storage.local.set({ [CONNECTION]: connection })
  await ext.storage.local.remove(RECONNECT)
}

export async function forgetConnection(): Promise<void> {
  await ext.storage.local.remove([CONNECTION, RECONNECT])
}

export async function needsReconnect(): Promise<boolean> {
  return (await ext.storage.local.get(RECONNECT))[RECONNECT] !== undefined
}

export async function markNeedsReconnect(): Promise<void> {
  await ext.storage.local.set({ [RECONNECT]: { since: Date.now() } })
}

export const isConnectionChange = (changes: Record<string, chrome.storage.StorageChange>): boolean =>
  CONNECTION in changes || RECONNECT in changes

/** What the popup of a tab shows: the last save made from that tab (docs/extension.md#the-popup). */
export type TabResult =
  | { state: 'saving'; url: string | null }
  | { state: 'saved' | 'already'; key: string; url: string; item: SavedItem; app: string; withHtml: boolean }
  | { state: 'queued'; key: string; url: string; reason: string }
  | { state: 'reconnect'; key?: string; url: string | null }
  | { state: 'not-connected' }
  | { state: 'error'; url: string | null; message: string }

export const resultKey = (tabId: number): string => `tab:${tabId}`

export async function loadResult(tabId: number): Promise<TabResult | null> {
  const key = resultKey(tabId)
  return ((await ext.storage.session.get(key))[key] as TabResult | undefined) ?? null
}

export async function saveResult(tabId: number, result: TabResult): Promise<void> {
  await ext.storage.session.set({ [resultKey(tabId)]: result })
}

/** The popup's edits to the item it shows, kept with that result only if it is still the tab's latest. */
export async function updateResultItem(tabId: number, key: string, item: SavedItem): Promise<void> {
  const current = await loadResult(tabId)
  if (current && (current.state === 'saved' || current.state === 'already') && current.key === key)
    await saveResult(tabId, { ...current, item })
}
