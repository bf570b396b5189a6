import { Zip, ZipDeflate } from 'fflate'
import type { ExportContext, ExportItem } from './export-item.ts'

/**
 * The Markdown export of highlights (docs/import-export.md#markdown-export): a zip of one `.md` file per
 * item that has highlights, for Obsidian, Logseq and any folder of notes. Each file is YAML front matter
 * (`title`, `url`, `savedAt`, `tags`, `folder`) and the item's highlights in text order, each a `>` quote
 * followed by its note as a paragraph.
 */

/** The longest file name, `.md` and any ` (2)` included, in characters (code points). */
export const MARKDOWN_FILE_NAME_MAX = 100
/** …and in UTF-8 bytes: ext4, APFS and NTFS take 255; 100 characters of emoji would be 400. */
const FILE_NAME_MAX_BYTES = 255

// Characters no file name may hold on Windows, macOS or Linux (`/ \ : * ? " < > |`), those that break an
// Obsidian link to the note (`# ^ [ ]`), controls, and format characters (a right-to-left override can make
// `gpj.md` read as `dm.jpg`).
const UNSAFE = /[/\\:*?"<>|#^[\]\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu
// Windows refuses these names whatever their extension.
const RESERVED = /^(?:con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])$/i
const encoder = new TextEncoder()

/** Replaces each half of a surrogate pair that has no other half (it cannot be written as UTF-8). */
const wellFormed = (text: string) =>
  text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD')

/**
 * A file name for an item's notes, from its title (or, without one, its URL without the scheme): NFC, the
 * unsafe characters above made spaces, whitespace runs one space, no leading or trailing dot or space (a
 * leading dot hides a file; Windows drops trailing ones), a Windows device name (`CON`, `NUL`…) given a
 * `_`, cut to MARKDOWN_FILE_NAME_MAX characters and 255 bytes, `.md` added. `taken` holds the names
 * already given, lower-cased: a name is unique in the zip whatever the file system's case rules, with
 * ` (2)`, ` (3)`… before `.md`; the new name is added to it.
 */
export function markdownFileName(title: string | null, url: string, taken: Set<string>): string {
  const base = safeFileStem(title, url)
  for (let n = 1; ; n++) {
    const suffix = n === 1 ? '' : ` (${n})`
    const name = `${cutFileStem(base, MARKDOWN_FILE_NAME_MAX - suffix.length - 3)}${suffix}.md`
    const key = name.toLowerCase()
    if (!taken.has(key)) {
      taken.add(key)
      return name
    }
  }
}

/**
 * A file name without its extension, from a title (or, without one, the URL without its scheme): the rules
 * of `markdownFileName` before the cut. Also the EPUB's (docs/import-export.md#epub).
 */
export function safeFileStem(title: string | null, url: string): string {
  const source = title !== null && title.trim() !== '' ? title : url.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '')
  let base = wellFormed(source)
    .normalize('NFC')
    .replace(UNSAFE, ' ')
    .replace(/\s+/g, ' ')
    .replace(/^[\s.]+|[\s.]+$/g, '')
  if (base === '') base = 'Untitled'
  if (RESERVED.test(base.split('.')[0]!)) base = `${base}_`
  return base
}

/** `text` cut to `max` code points and to what leaves room for a suffix within 255 bytes, trimmed again. */
export function cutFileStem(text: string, max: number): string {
  let points = [...text]
  if (points.length > max) points = points.slice(0, max)
  // A ` (99999)` suffix and `.md` take at most 11 bytes.
  while (encoder.encode(points.join('')).length > FILE_NAME_MAX_BYTES - 11) points.pop()
  return points.join('').replace(/[\s.]+$/, '') || 'Untitled'
}

/**
 * A YAML double-quoted scalar holding exactly `value`: JSON's string syntax (YAML 1.2 reads every JSON
 * string), with the characters YAML does not allow as they are, or that YAML 1.1 readers take for line
 * breaks, escaped as `\uXXXX` too (DEL, C1 controls with NEL, U+2028, U+2029, the BOM, U+FFFE, U+FFFF). So a
 * title with quotes, colons, `#`, `---` or line breaks stays one string, and no value can end the front
 * matter. @see https://yaml.org/spec/1.2.2/#731-double-quoted-style
 */
export function yamlString(value: string): string {
  return JSON.stringify(wellFormed(value)).replace(
    /[\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff]/g,
    (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`,
  )
}

/** Line breaks as `\n` (a CR LF or a lone CR would be one on some readers and none on others). */
const lines = (text: string) => text.replace(/\r\n?/g, '\n').split('\n')

/**
 * One item's notes: front matter, then each highlight (in the order given: the item's text order) as a
 * blockquote of its passage, every line prefixed (`>` alone for a blank one), and its note, if any, as the
 * paragraph after it, as written. A blank line ends each, so a note is never read as part of its quote.
 */
export function highlightsMarkdown(item: ExportItem): string {
  const front = [
    '---',
    `title: ${item.title === null ? 'null' : yamlString(item.title)}`,
    `url: ${yamlString(item.originalUrl)}`,
    `savedAt: ${yamlString(item.createdAt)}`,
    `tags: [${item.tags.map(yamlString).join(', ')}]`,
    `folder: ${item.folder === null ? 'null' : yamlString(item.folder.name)}`,
    '---',
    '',
  ]
  const body = (item.highlights ?? []).map((highlight) => {
    const quote = lines(wellFormed(highlight.quote.exact))
      .map((line) => (line.trim() === '' ? '>' : `> ${line}`))
      .join('\n')
    return highlight.note === null ? `${quote}\n` : `${quote}\n\n${lines(wellFormed(highlight.note)).join('\n')}\n`
  })
  return `${front.join('\n')}\n${body.join('\n')}`
}

/**
 * The Markdown export as zip bytes, streamed (fflate's streaming `Zip`): one deflated file per item that
 * has highlights (others are skipped), written as soon as the item is read, then the zip's directory.
 * Memory holds one item's file and the names given so far (to keep them unique), not the library. The
 * files are dated with the export's time. An empty zip (no item has highlights) is still a valid zip.
 */
export async function* markdownExportChunks(
  items: AsyncIterable<ExportItem>,
  context: ExportContext,
): AsyncGenerator<Uint8Array, void, undefined> {
  const mtime = new Date(context.exportedAt)
  if (Number.isNaN(mtime.getTime())) throw new RangeError(`Cannot export: "${context.exportedAt}" is not a date`)
  const ready: Uint8Array[] = []
  let failure: Error | null = null
  const zip = new Zip((error, chunk) => {
    if (error) failure = error
    else ready.push(chunk)
  })
  const taken = new Set<string>()
  const take = function* () {
    if (failure) throw failure
    yield* ready.splice(0)
  }
  for await (const item of items) {
    if (!item.highlights || item.highlights.length === 0) continue
    const file = new ZipDeflate(markdownFileName(item.title, item.originalUrl, taken), { level: 6 })
    file.mtime = mtime
    zip.add(file)
    file.push(encoder.encode(highlightsMarkdown(item)), true)
    yield* take()
  }
  zip.end()
  yield* take()
}
