import { catchUpSearchIndex } from '../storage/search-index.ts'
import type { Database } from '../storage/open-database.ts'

export interface SearchIndexer {
  stop(): void
}

/**
 * Catches the index up (storage's `catchUpSearchIndex`) every `intervalMs` in the background, so a burst
 * of captures is indexed in batches soon after, not by the next search. Failures are reported and retried
 * on the next tick.
 */
export function startSearchIndexer(db: Database, onError: (error: unknown) => void, intervalMs = 250): SearchIndexer {
  let running = false
  const timer = setInterval(async () => {
    if (running) return
    running = true
    try {
      await catchUpSearchIndex(db)
    } catch (error) {
      onError(error)
    } finally {
      running = false
    }
  }, intervalMs)
  ;(timer as { unref?: () => void }).unref?.()
  return { stop: () => clearInterval(timer) }
}
