import { decodeText } from './decode-text.ts'
import { type Detected, type DetectedText, describeBinary, detectText, detectZip } from './detect-format.ts'
import { checkItem, type RawItem } from './entry-rules.ts'
import { instapaperEntries } from './instapaper.ts'
import { parseJson } from './json.ts'
import { netscapeEntries } from './netscape.ts'
import { type OmnivoreFiles, omnivoreEntries } from './omnivore.ts'
import { pocketCsvEntries, pocketHtmlEntries } from './pocket.ts'
import { readlaterCsvEntries, readlaterJsonEntries } from './readlater.ts'
import {
  IMPORT_FORMATS,
  IMPORT_MAX_BYTES,
  IMPORT_MAX_EXPANDED_BYTES,
  type ImportFormat,
  ImportFormatError,
  type ParsedEntry,
  type ParsedImport,
} from './types.ts'
import { urlListEntries } from './url-list.ts'
import { wallabagEntries } from './wallabag.ts'
import { inflateZipEntries, isZip, listZip, type ZipEntry } from './zip.ts'

export interface ParseImportOptions {
  /** The format the person chose; null or absent to detect it from the bytes. */
  format?: ImportFormat | null
  /** The upload's Content-Type: only a hint (its charset is used for text without a byte-order mark). */
  contentType?: string | null
  /** The import's time: no saved date is later than this. */
  now: Date
  /** What a zip may expand to; IMPORT_MAX_EXPANDED_BYTES unless a test needs a small cap. */
  maxExpandedBytes?: number
}

const SUPPORTED =
  'Pocket (CSV, zip or HTML), browser bookmarks (HTML), Instapaper (CSV), Omnivore (zip), wallabag (JSON), ' +
  'Readlater (JSON or CSV) and lists of URLs are'

/** An import file whose format is known, read as its entries are asked for (docs/import-export.md#jobs). */
export interface ImportFile {
  format: ImportFormat
  /**
   * Its entries in file order as the parser read them, before the entry rules: counting these reads the
   * whole file (so a broken container or malformed CSV throws ImportFormatError) but parses no URL.
   */
  items(): Generator<RawItem, void, undefined>
  /** Its entries from the `skip`-th on (0 for all), each checked by docs/import-export.md#entry-rules. */
  entries(skip?: number): Generator<ParsedEntry, void, undefined>
}

/**
 * Opens an import file: detects its format (or checks the one asked for) and returns a reader of its
 * entries, which reads the file again each time it is iterated and keeps only what is in hand (a window
 * of CSV records, a piece of HTML, one part of a zip; JSON is parsed whole). Throws ImportFormatError when
 * the file as a whole cannot be read: at once for what detection sees, while iterating for the rest.
 * @see docs/import-export.md#formats and docs/import-export.md#detection
 */
export function readImportFile(bytes: Uint8Array, options: ParseImportOptions): ImportFile {
  const requested = options.format ?? null
  if (requested !== null && !IMPORT_FORMATS.includes(requested)) {
    throw new ImportFormatError(
      `format=${String(requested)} is not a format; expected one of ${IMPORT_FORMATS.join(', ')}`,
    )
  }
  if (bytes.length === 0) throw new ImportFormatError('the file is empty')
  if (bytes.length > IMPORT_MAX_BYTES) {
    throw new ImportFormatError(`the file is larger than ${IMPORT_MAX_BYTES / (1024 * 1024)} MiB`)
  }
  const checked = checkedReader(options.now)
  if (isZip(bytes)) return readZip(bytes, requested, options, checked)

  const binary = describeBinary(bytes, options.contentType)
  // Binary data is no format, so this always throws, saying what the bytes look like.
  if (binary !== null) settle(requested, { format: null, kind: 'binary', description: binary }, options.contentType)
  const text = decodeText(bytes, options.contentType)
  if (!/\S/.test(text)) throw new ImportFormatError('the file is empty')
  const found = detectText(text)
  const format = settle(requested, found, options.contentType)
  return checked(format, () => textItems(format, found, text))
}

type Reader = (format: ImportFormat, items: () => Generator<RawItem, void, undefined>) => ImportFile

/** An ImportFile of a parser's items, checked against `now` as they are asked for. */
function checkedReader(now: Date): Reader {
  return (format, items) => ({
    format,
    items,
    *entries(skip = 0) {
      let index = 0
      for (const item of items()) if (index++ >= skip) yield checkItem(item, now)
    },
  })
}

/** A zip (Pocket's CSV parts or Omnivore's metadata files): each part inflated when its turn comes. */
function readZip(bytes: Uint8Array, requested: ImportFormat | null, options: ParseImportOptions, checked: Reader) {
  const listed = listZip(bytes)
  const found = detectZip(listed)
  const format = settle(requested, found, options.contentType)
  const maxExpandedBytes = options.maxExpandedBytes ?? IMPORT_MAX_EXPANDED_BYTES
  const parts = function* () {
    let index = 0
    for (const content of inflateZipEntries(bytes, found.parts, maxExpandedBytes)) {
      yield { name: found.parts[index++]!.name, text: decodeText(content) }
    }
  }
  if (format === 'omnivore') {
    const files = function* () {
      for (const part of parts()) yield { name: part.name, json: parseJson(part.text, part.name) }
    }
    return checked(format, () => omnivoreEntries(files(), omnivoreFiles(bytes, listed, found.parts, maxExpandedBytes)))
  }
  return checked(format, () => pocketCsvEntries(parts()))
}

/**
 * Reads an Omnivore item's `highlights/<slug>.md` and `content/<slug>.html` (beside its metadata file) from
 * the zip, each inflated only when its entry is checked. They share the zip's expansion limit with the
 * metadata files: what is left of it after those is spent on each item's two files in entry order, by the
 * sizes the directory declares (an entry that inflates past its declared size is refused as damaged, so
 * that bounds what is really produced). A file that does not fit, or that is damaged, is left unread and
 * named as a problem of its entry (content past the limit silently: the item is fetched as usual); the
 * import goes on. Skipped entries (a resumed job) are accounted for too, so the same files are read each
 * time. @see docs/import-export.md#omnivore-highlights
 */
function omnivoreFiles(
  bytes: Uint8Array,
  listed: readonly ZipEntry[],
  parts: readonly ZipEntry[],
  maxExpandedBytes: number,
): OmnivoreFiles {
  const byName = new Map(listed.map((entry) => [entry.name, entry]))
  let left = maxExpandedBytes - parts.reduce((sum, entry) => sum + entry.size, 0)
  const reserve = (entry: ZipEntry | undefined): ZipEntry | null | undefined => {
    if (entry === undefined) return undefined
    if (entry.size > left) return null
    left -= entry.size
    return entry
  }
  const inflate = (entry: ZipEntry, problems: string[]): string | null => {
    try {
      // Bounded by its declared size, reserved above: inflating past it is refused as damaged.
      const [content] = inflateZipEntries(bytes, [entry], Number.MAX_SAFE_INTEGER)
      return decodeText(content!)
    } catch (error) {
      if (!(error instanceof ImportFormatError)) throw error
      problems.push(`${entry.name} cannot be read: ${error.message}`)
      return null
    }
  }
  return (file, slug) => {
    const folder = file === null ? '' : file.slice(0, file.lastIndexOf('/') + 1)
    const highlights = reserve(byName.get(`${folder}highlights/${slug}.md`))
    if (highlights === undefined) return undefined
    const content = reserve(byName.get(`${folder}content/${slug}.html`))
    return () => {
      const problems: string[] = []
      if (highlights === null) {
        problems.push(`highlights/${slug}.md was not read: the zip expands past the limit of an import`)
        return { highlights: null, content: () => null, problems }
      }
      return {
        highlights: inflate(highlights, problems),
        content: () => (content ? inflate(content, problems) : null),
        problems,
      }
    }
  }
}

/** Reads a whole import file at once (tests, small files): {@link readImportFile} with every entry checked. */
export function parseImportFile(bytes: Uint8Array, options: ParseImportOptions): ParsedImport {
  const file = readImportFile(bytes, options)
  return { format: file.format, entries: [...file.entries()] }
}

function textItems(format: ImportFormat, found: DetectedText, text: string): Generator<RawItem, void, undefined> {
  const { json } = found
  switch (format) {
    case 'pocket':
      return found.kind === 'html' ? pocketHtmlEntries(text) : pocketCsvEntries([{ name: null, text }])
    case 'netscape':
      return netscapeEntries(text)
    case 'instapaper':
      return instapaperEntries(text)
    case 'omnivore':
      return omnivoreEntries([{ name: null, json }])
    case 'wallabag':
      return wallabagEntries(json as unknown[])
    case 'readlater':
      return json === undefined ? readlaterCsvEntries(text) : readlaterJsonEntries(json)
    case 'urls':
      return urlListEntries(text)
  }
}

/**
 * The format to read the file as: the one found, when none was asked for or the same was; a list of URLs
 * when asked for on text that is no other format (its stray lines become entry errors). Anything else
 * is refused, saying what the file is.
 */
function settle(requested: ImportFormat | null, found: Detected, contentType: string | null | undefined): ImportFormat {
  if (requested === null) {
    if (found.format !== null) return found.format
    const sentAs = contentType ? ` (sent as ${contentType.split(';')[0]!.trim().slice(0, 100)})` : ''
    throw new ImportFormatError(`not a supported format: the file is ${found.description}${sentAs}; ${SUPPORTED} read`)
  }
  if (found.format === requested) return requested
  if (requested === 'urls' && found.format === null && found.kind === 'text') return 'urls'
  const named = found.format === null ? '' : ` (format=${found.format})`
  throw new ImportFormatError(`format=${requested} was asked for but the file is ${found.description}${named}`)
}
