import { ContentNotFoundError } from '../../core/errors.ts'
import { rebaseArchivedImages } from '../../core/reading/archived-image-url.ts'
import { readingMinutes } from '../../core/reading/reading-time.ts'
import { toTimestamp } from '../../core/time.ts'
import type { Clock, Principal } from '../../core/types.ts'
import { sharedArticleThreads } from '../reading/article-threads.ts'
import type { Database } from '../storage/open-database.ts'
import { articleWordCounts, queueArticleRefresh, readStoredContent, storeProgress } from '../storage/reading.ts'
import type { AppDeps } from './deps.ts'
import { changeItem } from './saved-items.ts'

/** The formats an article is served in: sanitized HTML with its text, Markdown, or text alone (MCP). */
export type ContentFormat = 'html' | 'markdown' | 'text'

interface ContentHead {
  savedItemId: string
  title: string | null
  byline: string | null
  siteName: string | null
  lang: string | null
  wordCount: number
  readingMinutes: number
  progress: number
  extractedAt: string
}
export type HtmlContentDto = ContentHead & { html: string; text: string }
export type MarkdownContentDto = ContentHead & { markdown: string }
export type TextContentDto = ContentHead & { text: string }

/**
 * The person's item's article (docs/reading.md#content). SavedItemNotFoundError when they have no such
 * item, ContentNotFoundError when it has no article. Markdown is made on request, off the serving thread.
 */
export async function readContent(
  deps: AppDeps,
  principal: Principal,
  id: string,
  format: 'html',
): Promise<HtmlContentDto>
export async function readContent(
  deps: AppDeps,
  principal: Principal,
  id: string,
  format: 'markdown',
): Promise<MarkdownContentDto>
export async function readContent(
  deps: AppDeps,
  principal: Principal,
  id: string,
  format: 'text',
): Promise<TextContentDto>
export async function readContent(
  deps: AppDeps,
  principal: Principal,
  id: string,
  format: ContentFormat,
): Promise<HtmlContentDto | MarkdownContentDto | TextContentDto> {
  const { content, progress } = await readStoredContent(deps.db, principal.userId, id)
  if (!content) throw new ContentNotFoundError(id)
  const head: ContentHead = {
    savedItemId: id,
    title: content.title,
    byline: content.byline,
    siteName: content.siteName,
    lang: content.lang,
    wordCount: content.wordCount,
    readingMinutes: readingMinutes(content.wordCount),
    progress,
    extractedAt: content.extractedAt,
  }
  if (format === 'text') return { ...head, text: content.text }
  // Its archived images at the service's address now, whatever it was when they were archived.
  const html = rebaseArchivedImages(content.html, id, deps.config.appUrl)
  if (format === 'markdown') return { ...head, markdown: await sharedArticleThreads('requests').markdown(html) }
  return { ...head, html, text: content.text }
}

/**
 * Records how far the person has read (0 to 1); 1 also marks the item read, as `…/read` does
 * (docs/reading.md#progress). `updatedAt` is when the progress last changed: saving the same progress
 * again is no change (docs/api.md#no-op-writes). SavedItemNotFoundError when they have no such item.
 */
export async function saveProgress(
  deps: AppDeps,
  principal: Principal,
  id: string,
  progress: number,
): Promise<{ savedItemId: string; progress: number; updatedAt: string }> {
  const updatedAt = await storeProgress(deps.db, principal.userId, id, progress, toTimestamp(deps.clock.now()))
  if (progress === 1) await changeItem(deps, principal, id, { kind: 'read-state', isRead: true })
  return { savedItemId: id, progress, updatedAt }
}

/**
 * Queues the articles of every enriched item (of one person, or everyone: `userId` null) to be extracted
 * again after all live work (docs/reading.md#backfill); returns how many items were queued.
 */
export function refreshArticles(deps: { db: Database; clock: Clock }, userId: string | null): Promise<number> {
  return queueArticleRefresh(deps.db, userId, toTimestamp(deps.clock.now()))
}

/** The word counts of the articles of these items (those that have one), in one query: item id -> words. */
export function articleWordCountsOf(deps: { db: Database }, itemIds: readonly string[]): Promise<Map<string, number>> {
  return articleWordCounts(deps.db, itemIds)
}
