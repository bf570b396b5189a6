import { decodeHtml } from '../../core/enrichment/decode-html.ts'
import { createPageExtractor, metadataFromUrl } from '../../core/enrichment/extract-page.ts'
import type { PageMetadata } from '../../core/enrichment/page-metadata.ts'
import { decideAfterFailure, isExhausted, LEASE_MS } from '../../core/enrichment/retry-policy.ts'
import { toTimestamp } from '../../core/time.ts'
import type { Clock } from '../../core/types.ts'
import { type ClaimLoop, startClaimLoop } from './claim-loop.ts'
import type { Log } from '../app/deps.ts'
import type { Database } from '../storage/open-database.ts'
import {
  claimEnrichmentJob,
  completeEnrichment,
  failEnrichment,
  scheduleRetry,
  type ClaimedJob,
} from '../storage/enrichment-jobs.ts'
import { capturedPageOf, storeArticle } from '../storage/reading.ts'
import { sharedArticleThreads, type ExtractedPage } from '../reading/article-threads.ts'
import { FetchRefusedError, type FetchedPage } from '../enrichment/guarded-fetch.ts'
import type { Article } from '../../core/reading/extract-article.ts'
import { NO_IMAGES, type ArchivedImageSet } from '../storage/item-images.ts'
import { archiveImages, IMAGES_UNTIL_MS, type ArchivedImages, type ImageArchiving } from './archive-images.ts'

export interface EnrichmentWorkerDeps {
  db: Database
  clock: Clock
  log: Log
  /** The guarded fetch, bound to its options. */
  fetchPage(url: string): Promise<FetchedPage>
  /**
   * Metadata and article of a page, off the serving thread (docs/reading.md#extraction). Default: this
   * process's enrichment thread.
   */
  extract?(page: Uint8Array | string, contentType: string | null, url: string): Promise<ExtractedPage>
  /**
   * Archives the article's images and points it at the copies (docs/reading.md#archived-images). Absent: the
   * article keeps its images' original URLs, and an item's earlier copies go with its next extraction.
   */
  images?: ImageArchiving
  /** Points an article at its archived images, off the serving thread. Default: this process's enrichment thread. */
  withImages?(article: Article, pageUrl: string, copies: ReadonlyMap<string, string>): Promise<Article>
}

export interface EnrichmentWorkerOptions {
  /** Jobs in flight at once, per process. */
  concurrency: number
  /** How often an idle worker looks for due jobs. */
  pollMs: number
}

export const DEFAULT_WORKER_OPTIONS: EnrichmentWorkerOptions = { concurrency: 4, pollMs: 500 }

/** Decoded HTML is parsed in slices, yielding between them, so a 2 MiB page never stalls API requests. */
const PARSE_SLICE_CHARS = 64 * 1024

/** Stops claiming, waits for the jobs in flight. */
export type EnrichmentWorkers = Pick<ClaimLoop, 'stop'>

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/**
 * Runs enrichment jobs in this process: claims due jobs from the database (so any number of processes
 * share one queue), at most `concurrency` at a time, entirely off the request path.
 */
export function startEnrichmentWorkers(
  deps: EnrichmentWorkerDeps,
  options: EnrichmentWorkerOptions = DEFAULT_WORKER_OPTIONS,
): EnrichmentWorkers {
  return startClaimLoop({
    claim: () => {
      const nowMs = deps.clock.now().getTime()
      return claimEnrichmentJob(deps.db, nowMs, nowMs + LEASE_MS)
    },
    run: (job) => runJob(deps, job),
    concurrency: options.concurrency,
    pollMs: options.pollMs,
    onClaimError: (error) =>
      deps.log('warn', { msg: 'enrichment queue unavailable', error: error instanceof Error ? error.name : 'unknown' }),
  })
}

/** One attempt: fetch, extract, store; or decide when to try again. Never throws. */
export async function runJob(deps: EnrichmentWorkerDeps, job: ClaimedJob): Promise<void> {
  const started = performance.now()
  const host = hostOf(job.originalUrl)
  const now = () => toTimestamp(deps.clock.now())
  try {
    if (isExhausted(job.attempts)) {
      await failEnrichment(deps.db, job, now())
      deps.log('warn', {
        msg: 'enrichment',
        itemId: job.itemId,
        host,
        outcome: 'failed',
        reason: 'attempts exhausted by interrupted runs',
        attempts: job.attempts,
      })
      return
    }
    // A page sent with the capture is read instead of the URL: no request leaves for it.
    const captured = await capturedPageOf(deps.db, job.itemId)
    if (captured) await pause(0)
    let extracted: ExtractedPage & { fallback: string | null }
    let fetched: Record<string, unknown>
    let pageUrl = job.originalUrl
    if (captured) {
      extracted = await extractOffThread(deps, captured.html, null, job.originalUrl)
      fetched = { source: 'page', bytes: captured.html.length }
    } else {
      const page = await deps.fetchPage(job.originalUrl)
      pageUrl = page.finalUrl
      extracted = page.isHtml
        ? await extractOffThread(deps, page.body, page.contentType, page.finalUrl)
        : { metadata: metadataFromUrl(page.finalUrl), article: null, fallback: null }
      fetched = { source: 'fetch', redirects: page.redirects, bytes: page.body.byteLength, truncated: page.truncated }
    }
    const archived = await withArchivedImages(deps, job.itemId, extracted, pageUrl, started)
    // The embedded driver is synchronous: a turn of the event loop between these writes (each up to tens
    // of ms for a 2 MiB page) lets requests in, instead of one long stall (docs/benchmarks.md#reading).
    await pause(0)
    const kept = await storeArticle(deps.db, job.itemId, archived.article, now(), captured, archived.images)
    await pause(0)
    const stored = kept && (await completeEnrichment(deps.db, job, extracted.metadata, now()))
    await pause(0)
    deps.log('info', {
      msg: 'enrichment',
      itemId: job.itemId,
      host,
      outcome: stored ? 'enriched' : 'item deleted',
      attempts: job.attempts,
      ...fetched,
      articleWords: extracted.article?.wordCount ?? null,
      ...(extracted.fallback ? { extraction: extracted.fallback } : {}),
      ...archived.log,
      ms: Math.round(performance.now() - started),
    })
  } catch (error) {
    const permanent = error instanceof FetchRefusedError
    // Messages name the host and the reason, never the page or the full URL (it may carry secrets).
    const reason = error instanceof Error ? `${error.name}: ${error.message}`.slice(0, 300) : 'unknown failure'
    try {
      const decision = decideAfterFailure(job.attempts, permanent, deps.clock.now().getTime())
      if (decision.kind === 'retry') await scheduleRetry(deps.db, job, decision.runAfterMs, reason)
      else await failEnrichment(deps.db, job, now())
      deps.log(decision.kind === 'retry' ? 'info' : 'warn', {
        msg: 'enrichment',
        itemId: job.itemId,
        host,
        outcome: decision.kind === 'retry' ? 'retry' : 'failed',
        reason,
        attempts: job.attempts,
        ms: Math.round(performance.now() - started),
      })
    } catch (storeError) {
      // The lease runs out and another attempt follows; nothing else to do here.
      deps.log('error', {
        msg: 'enrichment result not stored',
        itemId: job.itemId,
        error: storeError instanceof Error ? storeError.name : 'unknown',
      })
    }
  }
}

/**
 * The article to store and the images it points at. Archiving is best effort: whatever fails (an image,
 * the rewrite, the read of the item's earlier images) leaves the article as extracted, never the job failed.
 */
async function withArchivedImages(
  deps: EnrichmentWorkerDeps,
  itemId: string,
  extracted: ExtractedPage,
  pageUrl: string,
  started: number,
): Promise<{ article: Article | null; images: ArchivedImageSet; log: Record<string, unknown> }> {
  const { article } = extracted
  const sources = extracted.imageSources ?? []
  if (!deps.images || !article || sources.length === 0) return { article, images: NO_IMAGES, log: {} }
  let result: ArchivedImages
  try {
    result = await archiveImages(deps.db, deps.images, itemId, sources, started + IMAGES_UNTIL_MS)
  } catch (error) {
    return { article, images: NO_IMAGES, log: { images: error instanceof Error ? error.name : 'unknown' } }
  }
  if (result.copies.size === 0) return { article, images: NO_IMAGES, log: result.log }
  const rewrite = deps.withImages ?? ((...args) => sharedArticleThreads('enrichment').withImages(...args))
  try {
    return { article: await rewrite(article, pageUrl, result.copies), images: result.set, log: result.log }
  } catch (error) {
    // The article could not be pointed at the copies: it keeps its images' URLs, and the copies are not kept.
    return {
      article,
      images: NO_IMAGES,
      log: { ...result.log, images: error instanceof Error ? error.name : 'unknown' },
    }
  }
}

/**
 * The page's metadata and article from the extraction thread. When the thread gives up on the page (past
 * its time budget, or crashed) the metadata is read here instead, in slices, and the item has no article.
 */
async function extractOffThread(
  deps: EnrichmentWorkerDeps,
  page: Uint8Array | string,
  contentType: string | null,
  url: string,
): Promise<ExtractedPage & { fallback: string | null }> {
  const extract = deps.extract ?? ((...args) => sharedArticleThreads('enrichment').extract(...args))
  try {
    return { ...(await extract(page, contentType, url)), fallback: null }
  } catch (error) {
    const html = typeof page === 'string' ? page : decodeHtml(page, contentType)
    return {
      metadata: await extractInSlices(html, url),
      article: null,
      fallback: error instanceof Error ? error.name : 'unknown',
    }
  }
}

async function extractInSlices(html: string, url: string): Promise<PageMetadata> {
  const extractor = createPageExtractor(url)
  for (let offset = 0; offset < html.length && !extractor.done; offset += PARSE_SLICE_CHARS) {
    extractor.write(html.slice(offset, offset + PARSE_SLICE_CHARS))
    await pause(0)
  }
  return extractor.finish()
}

function hostOf(url: string): string {
  try {
    return new URL(url).host
  } catch {
    return '?'
  }
}
