import type { HighlightDto } from '../../app/highlights.ts'
import { markArticle } from '../../../core/highlights/mark-article.ts'
import { gateArticle } from './pages/article-gate.ts'
import { highlightEntries } from './pages/highlights.ts'
import type { MarkedArticle } from './pages/reader.ts'

interface Entry extends MarkedArticle {
  html: string
  text: string
  version: string
  bytes: number
}

/**
 * The reader view's marked articles, kept per process (docs/highlights.md#web): walking a long article to
 * place its marks costs milliseconds, many times the rest of the page, and a person reads an article (and
 * comes back to it) far more often than they highlight in it. An entry is kept by item and used only when
 * what it was made of is the same: the stored HTML and text (compared whole) and the version of the item's
 * highlights (`itemHighlightsVersion`, a random value that changes with any highlight's colour, note, position, or one
 * added or deleted, by this process or another). Nothing has to invalidate it: a change is a different
 * input, and the entry is made again. The version is read before the highlights, so an entry can only be
 * older than its version says, never newer. Least recently used first out, bounded by the characters it
 * holds.
 */
export function readerMarks(maxCharacters = 16 * 1024 * 1024) {
  const entries = new Map<string, Entry>()
  let held = 0

  return async function marked(
    itemId: string,
    content: { html: string; text: string },
    highlights: { any: boolean; version: string },
    read: () => Promise<readonly HighlightDto[]>,
  ): Promise<MarkedArticle> {
    if (!highlights.any) return { article: gateArticle(content.html), entries: '', count: 0 }
    const found = entries.get(itemId)
    if (found) {
      entries.delete(itemId)
      if (found.version === highlights.version && found.html === content.html && found.text === content.text) {
        entries.set(itemId, found)
        return found
      }
      held -= found.bytes
    }
    const all = await read()
    const made: Entry = {
      html: content.html,
      text: content.text,
      version: highlights.version,
      article: markArticle(gateArticle(content.html), all, content.text),
      entries: highlightEntries(itemId, all).value,
      count: all.length,
      bytes: 0,
    }
    made.bytes = made.html.length + made.text.length + made.version.length + made.article.length + made.entries.length
    if (made.bytes > maxCharacters) return made
    entries.set(itemId, made)
    held += made.bytes
    for (const [oldest, old] of entries) {
      if (held <= maxCharacters) break
      entries.delete(oldest)
      held -= old.bytes
    }
    return made
  }
}
