import type { Clock } from '../../core/types.ts'
import type { Config } from '../config.ts'
import type { Log } from '../app/deps.ts'
import type { Database } from '../storage/open-database.ts'
import { guardedFetch } from '../enrichment/guarded-fetch.ts'
import { fetchImage } from '../enrichment/image-fetch.ts'
import { archivedImageUrl } from '../../core/reading/archived-image-url.ts'
import { startEnrichmentWorkers, type EnrichmentWorkers } from './enrichment-worker.ts'

/**
 * Starts this process's enrichment workers as configured: none with ENRICHMENT=off (items stay
 * `pending`), and a loud warning when ENRICH_ALLOW_PRIVATE=1 lifts the address guard.
 */
export function startEnrichment(deps: {
  db: Database
  config: Config
  clock: Clock
  log: Log
}): EnrichmentWorkers | null {
  const { config, log } = deps
  if (!config.enrichment) {
    log('info', { msg: 'enrichment off (ENRICHMENT=off): saved items stay pending' })
    return null
  }
  if (config.enrichAllowPrivate) {
    log('warn', {
      msg: 'ENRICH_ALLOW_PRIVATE=1: enrichment may fetch loopback and private addresses. For tests only; never in production.',
    })
  }
  const userAgent = `Readlater/1.0 (+${config.baseUrl})`
  const guard = { allowPrivate: config.enrichAllowPrivate, userAgent }
  return startEnrichmentWorkers({
    db: deps.db,
    clock: deps.clock,
    log,
    fetchPage: (url) => guardedFetch(url, guard),
    // Images go through the same guard as the page (docs/enrichment.md#images).
    images: {
      fetchImage: (url, options) => fetchImage(url, guard, options),
      urlOf: (itemId, n) => archivedImageUrl(config.appUrl, itemId, n),
    },
  })
}
