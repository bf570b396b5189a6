import { createHash } from 'node:crypto'
import { offlineItems } from '../storage/offline.ts'
import type { Database } from '../storage/open-database.ts'

/** How many unread items' reader views the web app keeps for reading offline (docs/web.md#offline). */
export const OFFLINE_ITEMS = 200
/** The most the service worker keeps of them, pages and images together (docs/web.md#offline). */
export const OFFLINE_BYTES = 200 * 1024 * 1024

/** One reader view to keep: its address and a version that changes whenever the page would. */
export interface OfflineEntry {
  id: string
  url: string
  version: string
}

/** What the service worker keeps for the signed-in person, newest first (docs/web.md#offline). */
export interface OfflineManifest {
  /** Whose pages these are: the worker drops everything it kept when another person's pages arrive. */
  user: string
  /** The session's form token, which the worker puts into queued forms it sends (a new sign-in rotates it). */
  csrf: string
  maxBytes: number
  items: OfflineEntry[]
}

const short = (text: string): string => createHash('sha256').update(text).digest('base64url').slice(0, 22)

/**
 * The person's key for the offline caches: the same on every page of theirs (a response header the worker
 * reads), another person's differs. Opaque, so a cached page's headers name nobody.
 */
export const offlineUserKey = (userId: string): string => short(`readlater offline user\n${userId}`)

/**
 * The reader views the web app keeps offline: the person's newest unread items that have an article, at most
 * {@link OFFLINE_ITEMS}, each with a version of everything its page shows (the item, the article, the reading
 * position, the highlights, the form token), so the worker fetches again exactly the pages that changed.
 */
export async function offlineManifest(deps: { db: Database }, userId: string, csrf: string): Promise<OfflineManifest> {
  const rows = await offlineItems(deps.db, userId, OFFLINE_ITEMS)
  return {
    user: offlineUserKey(userId),
    csrf,
    maxBytes: OFFLINE_BYTES,
    items: rows.map((row) => ({
      id: row.id,
      url: `/items/${encodeURIComponent(row.id)}`,
      version: short([row.updatedAt, row.extractedAt, row.progress ?? 0, row.highlightsVersion ?? '', csrf].join('\n')),
    })),
  }
}
