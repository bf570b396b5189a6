import { ARTICLE_IMAGE_LIMITS } from '../../core/reading/article-images.ts'
import type { FetchedImage } from '../enrichment/image-fetch.ts'
import {
  archivedImagesOf,
  highestImageNumberOf,
  type ArchivedImageRow,
  type ArchivedImageSet,
  type NewArchivedImage,
} from '../storage/item-images.ts'
import type { Database } from '../storage/open-database.ts'

/** How enrichment archives an article's images (docs/reading.md#archived-images); absent: it does not. */
export interface ImageArchiving {
  /** One image through the address guard, judged by its bytes (adapters/enrichment/image-fetch.ts). */
  fetchImage(url: string, options: { maxBytes: number; signal: AbortSignal }): Promise<FetchedImage>
  /** Where our copy of an item's n-th image is served: `{APP_URL}/items/{id}/images/{n}`. */
  urlOf(itemId: string, n: number): string
  /** Default {@link ARTICLE_IMAGE_LIMITS}. */
  limits?: { count: number; bytes: number; itemBytes: number }
  /** Images of one item fetched at once; default 4. */
  concurrency?: number
  /** Images of one host fetched at once by this process, all items together; default 6, as a browser. */
  perHost?: number
}

/**
 * How long into an enrichment job images may still be fetched: the job holds its lease 45 s
 * (core/enrichment/retry-policy.ts), and the page (10 s), its extraction, the rewrite and the writes
 * come around this. An image not fetched by then keeps its original URL.
 */
export const IMAGES_UNTIL_MS = 25_000

/** What archiving came to: the set to store, the copies the article points at, and counts for the log. */
export interface ArchivedImages {
  set: ArchivedImageSet
  /** Source URL → the URL of our copy, for every image kept or added. */
  copies: Map<string, string>
  log: { imagesKept: number; imagesAdded: number; imagesFailed: number; imagesSkipped: number; imageBytes: number }
}

/** The images of one host being fetched by this process, and who waits for a turn. */
const hosts = new Map<string, { active: number; waiting: (() => void)[] }>()

async function hostTurn(host: string, limit: number): Promise<() => void> {
  let entry = hosts.get(host)
  if (!entry) hosts.set(host, (entry = { active: 0, waiting: [] }))
  const held = entry
  if (held.active >= limit) await new Promise<void>((resolve) => held.waiting.push(resolve))
  held.active++
  return () => {
    held.active--
    const next = held.waiting.shift()
    if (next) next()
    else if (held.active === 0) hosts.delete(host)
  }
}

const hostOf = (url: string): string => {
  try {
    return new URL(url).host
  } catch {
    return '?'
  }
}

/**
 * Archives the images of an item's new article: the first `count` distinct sources, in the article's order.
 * One this item already has (same source URL) is kept as stored, under its number, without a fetch; the
 * others are fetched (`concurrency` at a time, `perHost` per host across the process, until `deadline`, a
 * `performance.now()` time), each at most `bytes`, together with the kept ones at most `itemBytes`, and
 * numbered in article order after the highest number the item has ever used. An image that fails keeps its source URL.
 */
export async function archiveImages(
  db: Database,
  archiving: ImageArchiving,
  itemId: string,
  sources: readonly string[],
  deadline: number,
): Promise<ArchivedImages> {
  const limits = archiving.limits ?? ARTICLE_IMAGE_LIMITS
  const wanted = sources.slice(0, limits.count)
  const stored = await archivedImagesOf(db, itemId)
  const bySource = new Map(stored.map((row) => [row.originalUrl, row]))
  const keep: ArchivedImageRow[] = []
  const toFetch: { source: string; order: number }[] = []
  wanted.forEach((source, order) => {
    const row = bySource.get(source)
    if (row) keep.push(row)
    else toFetch.push({ source, order })
  })
  let used = keep.reduce((sum, row) => sum + row.size, 0)
  let skipped = sources.length - wanted.length
  let failed = 0
  const fetched: { source: string; order: number; image: Extract<FetchedImage, { ok: true }> }[] = []
  // Whatever is still in flight at the deadline is abandoned.
  const budget = new AbortController()
  const timer = setTimeout(() => budget.abort(), Math.max(0, deadline - performance.now()))
  const queue = [...toFetch]
  const worker = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      if (budget.signal.aborted || used >= limits.itemBytes) {
        skipped++
        continue
      }
      const release = await hostTurn(hostOf(next.source), archiving.perHost ?? 6)
      try {
        const room = Math.min(limits.bytes, limits.itemBytes - used)
        if (budget.signal.aborted || room <= 0) {
          skipped++
          continue
        }
        const image = await archiving.fetchImage(next.source, { maxBytes: room, signal: budget.signal })
        // Checked again on arrival: the images fetched alongside may have used the item's room meanwhile.
        if (image.ok && used + image.bytes.byteLength <= limits.itemBytes) {
          used += image.bytes.byteLength
          fetched.push({ ...next, image })
        } else failed++
      } finally {
        release()
      }
    }
  }
  try {
    await Promise.all(Array.from({ length: Math.min(archiving.concurrency ?? 4, toFetch.length) }, worker))
  } finally {
    clearTimeout(timer)
  }
  // After every number the item has ever used, not only those it still has: an image's address is cached
  // as immutable (docs/reading.md#archived-images).
  const after = await highestImageNumberOf(db, itemId)
  let n = after
  const add: NewArchivedImage[] = fetched
    .sort((a, b) => a.order - b.order)
    .map(({ source, image }) => ({ n: ++n, originalUrl: source, mediaType: image.mediaType, bytes: image.bytes }))
  const copies = new Map<string, string>()
  for (const row of [...keep, ...add]) copies.set(row.originalUrl, archiving.urlOf(itemId, row.n))
  return {
    set: { keep, add, after },
    copies,
    log: {
      imagesKept: keep.length,
      imagesAdded: add.length,
      imagesFailed: failed,
      imagesSkipped: skipped,
      imageBytes: used,
    },
  }
}
