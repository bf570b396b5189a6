import { headerOf } from './csv.ts'
import { namesUtf16Charset } from './decode-text.ts'
import { isInstapaperHeader } from './instapaper.ts'
import { parseJson } from './json.ts'
import { isOmnivoreItems, isOmnivoreMetadataName } from './omnivore.ts'
import { isPocketHeader, isPocketHtml } from './pocket.ts'
import { isReadlaterHeader, isReadlaterJson } from './readlater.ts'
import type { ImportFormat } from './types.ts'
import { isUrlList } from './url-list.ts'
import { isWallabagEntries } from './wallabag.ts'
import type { ZipEntry } from './zip.ts'

/** What a file was found to be: a format we read, or null; and how to name it in a message. */
export interface Detected {
  format: ImportFormat | null
  /** What the bytes are, whatever the format: decides how a format is read (Pocket's CSV or HTML). */
  kind: 'zip' | 'binary' | 'json' | 'html' | 'csv' | 'text'
  /** "Pocket's CSV export", "a CSV file with the header …": completes "the file is …". */
  description: string
}

/** A zip, by its entry names; `parts` are the entries to read, in name order. */
export interface DetectedZip extends Detected {
  parts: ZipEntry[]
}

/** A text file; JSON is parsed once here and handed on. */
export interface DetectedText extends Detected {
  json?: unknown
}

/**
 * The zip rules of docs/import-export.md#detection: `metadata_*.json` entries make Omnivore's export; CSV
 * entries make Pocket's (their headers are checked when read). macOS's `__MACOSX/` copies are ignored.
 */
export function detectZip(entries: readonly ZipEntry[]): DetectedZip {
  const files = entries.filter((entry) => !/(?:^|\/)(?:__MACOSX\/|\._)/.test(entry.name))
  const metadata = files.filter((entry) => isOmnivoreMetadataName(entry.name)).sort(byName)
  if (metadata.length > 0)
    return { format: 'omnivore', kind: 'zip', description: "Omnivore's export zip", parts: metadata }
  const csv = files.filter((entry) => /\.csv$/i.test(entry.name)).sort(byName)
  if (csv.length > 0) return { format: 'pocket', kind: 'zip', description: "Pocket's zipped CSV export", parts: csv }
  if (files.length === 0) return { format: null, kind: 'zip', description: 'an empty zip', parts: [] }
  const names = files.slice(0, 5).map((entry) => entry.name)
  const more = files.length > names.length ? ` and ${files.length - names.length} more` : ''
  return {
    format: null,
    kind: 'zip',
    description: `a zip holding ${names.join(', ')}${more} (neither Pocket's CSV parts nor Omnivore's metadata_*.json)`,
    parts: [],
  }
}

/**
 * Bytes that are no text at all, named so the message helps: a PDF, a gzip or binary data (a NUL in the
 * first kilobyte, which no text export has); null for text. UTF-16 text has NULs, so a UTF-16 BOM is text,
 * and so are bytes whose upload's `Content-Type` names a UTF-16 charset (decodeText reads them with it).
 * @see docs/import-export.md#detection
 */
export function describeBinary(bytes: Uint8Array, contentType?: string | null): string | null {
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) return null
  if (bytes[0] === 0x25 && bytes[1] === 0x50 && bytes[2] === 0x44 && bytes[3] === 0x46) return 'a PDF document'
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) return 'gzip-compressed data (unpack it first)'
  if (namesUtf16Charset(contentType)) return null
  return bytes.subarray(0, 1024).includes(0) ? 'binary data' : null
}

/**
 * The text rules of docs/import-export.md#detection, in order: JSON by its shape, HTML by its markers, CSV
 * by its header (case-insensitive), then a list of URLs. Throws ImportFormatError for JSON that does not
 * parse, since no other format starts with `{` or `[`.
 */
export function detectText(text: string): DetectedText {
  const first = /\S/.exec(text.slice(0, 4096))?.[0]
  if (first === '{' || first === '[') return detectJson(parseJson(text))
  if (first === '<') return detectHtml(text)
  // A URL list's first line can hold commas too: a `#` comment, or a URL with a comma in it.
  const header = headerOf(text)
  if (header.length > 1 && !header[0]!.startsWith('#') && !header.some((cell) => cell.includes('://'))) {
    return detectCsv(header)
  }
  if (isUrlList(text)) return { format: 'urls', kind: 'text', description: 'a list of URLs' }
  return {
    format: null,
    kind: 'text',
    description: 'text that is not a list of URLs (fewer than half its lines are http(s) URLs)',
  }
}

function detectJson(json: unknown): DetectedText {
  if (isReadlaterJson(json)) return { format: 'readlater', kind: 'json', description: 'a Readlater JSON export', json }
  if (isWallabagEntries(json)) return { format: 'wallabag', kind: 'json', description: "wallabag's JSON export", json }
  if (isOmnivoreItems(json))
    return { format: 'omnivore', kind: 'json', description: 'an Omnivore metadata_*.json file', json }
  if (Array.isArray(json) && json.length === 0)
    return { format: null, kind: 'json', description: 'an empty JSON array', json }
  return { format: null, kind: 'json', description: 'JSON that is neither a Readlater nor a wallabag export', json }
}

function detectHtml(text: string): DetectedText {
  if (/<!DOCTYPE\s+NETSCAPE-Bookmark-file-1\s*>/i.test(text.slice(0, 4096))) {
    return { format: 'netscape', kind: 'html', description: 'a browser bookmark file' }
  }
  if (isPocketHtml(text)) return { format: 'pocket', kind: 'html', description: "Pocket's HTML export" }
  if (/<dl[\s>]/i.test(text) && /<a\s[^>]*href\s*=/i.test(text)) {
    return { format: 'netscape', kind: 'html', description: 'a browser bookmark file' }
  }
  return { format: null, kind: 'html', description: 'an HTML page that is neither a bookmark file nor a Pocket export' }
}

function detectCsv(header: readonly string[]): DetectedText {
  if (isReadlaterHeader(header)) return { format: 'readlater', kind: 'csv', description: 'a Readlater CSV export' }
  if (isPocketHeader(header)) return { format: 'pocket', kind: 'csv', description: "Pocket's CSV export" }
  if (isInstapaperHeader(header)) return { format: 'instapaper', kind: 'csv', description: "Instapaper's CSV export" }
  const joined = header.join(',')
  const shown = joined.length > 100 ? `${joined.slice(0, 100)}…` : joined
  return { format: null, kind: 'csv', description: `a CSV file whose header "${shown}" is no known export's` }
}

/** Name order with numbers compared as numbers, so `metadata_50_to_99` comes before `metadata_100_to_149`. */
export function compareNames(a: string, b: string): number {
  const left = a.split(/(\d+)/)
  const right = b.split(/(\d+)/)
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    const x = left[i]!
    const y = right[i]!
    if (x === y) continue
    // split with a capture group puts the digit runs at odd indexes.
    if (i % 2 === 1) return Number(x) - Number(y) || (x < y ? -1 : 1)
    return x < y ? -1 : 1
  }
  return left.length - right.length
}

function byName(a: ZipEntry, b: ZipEntry): number {
  return compareNames(a.name, b.name)
}
