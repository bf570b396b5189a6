import type { RawItem } from './entry-rules.ts'

const LINE_BREAK = /\r\n|\r|\n/g
const LOOKS_LIKE_URL = /^https?:\/\/\S+$/i

/** Lines that say something: not blank, not a `#` comment; found as they are asked for. */
function* meaningfulLines(text: string): Generator<{ line: number; text: string }> {
  let line = 0
  for (let start = 0; start <= text.length; ) {
    LINE_BREAK.lastIndex = start
    const found = LINE_BREAK.exec(text)
    const end = found === null ? text.length : found.index
    line++
    const trimmed = text.slice(start, end).trim()
    if (trimmed !== '' && !trimmed.startsWith('#')) yield { line, text: trimmed }
    if (found === null) break
    start = end + found[0].length
  }
}

/** Plain text is a URL list when more than half of its first 100 meaningful lines are http(s) URLs. */
export function isUrlList(text: string): boolean {
  const lines: { text: string }[] = []
  for (const line of meaningfulLines(text.slice(0, 1024 * 1024))) {
    if (lines.push(line) >= 100) break
  }
  const urls = lines.filter((line) => LOOKS_LIKE_URL.test(line.text)).length
  return urls > 0 && urls * 2 > lines.length
}

/**
 * One URL per line; blank lines and `#` comments are skipped; any other line that is not an http(s) URL is
 * an entry error with its line. @see docs/import-export.md#formats
 */
export function* urlListEntries(text: string): Generator<RawItem> {
  for (const { line, text: url } of meaningfulLines(text)) yield { line, url, isRead: false }
}
