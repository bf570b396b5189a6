import { checkEntry } from './entry-rules.ts'
import type { ParsedEntry } from './types.ts'

const LINE_BREAK = /\r\n|\r|\n/
const LOOKS_LIKE_URL = /^https?:\/\/\S+$/i

/** Lines that say something: not blank, not a `#` comment. */
function meaningfulLines(text: string): { line: number; text: string }[] {
  const lines: { line: number; text: string }[] = []
  text.split(LINE_BREAK).forEach((raw, index) => {
    const trimmed = raw.trim()
    if (trimmed !== '' && !trimmed.startsWith('#')) lines.push({ line: index + 1, text: trimmed })
  })
  return lines
}

/** Plain text is a URL list when more than half of its first 100 meaningful lines are http(s) URLs. */
export function isUrlList(text: string): boolean {
  const lines = meaningfulLines(text.slice(0, 1024 * 1024)).slice(0, 100)
  const urls = lines.filter((line) => LOOKS_LIKE_URL.test(line.text)).length
  return urls > 0 && urls * 2 > lines.length
}

/**
 * One URL per line; blank lines and `#` comments are skipped; any other line that is not an http(s) URL is
 * an entry error with its line. @see docs/import-export.md#formats
 */
export function parseUrlList(text: string, now: Date): ParsedEntry[] {
  return meaningfulLines(text).map(({ line, text: url }) => checkEntry({ line, url, isRead: false }, now))
}
