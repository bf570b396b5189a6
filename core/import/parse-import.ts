import { decodeText } from './decode-text.ts'
import { type Detected, type DetectedText, describeBinary, detectText, detectZip } from './detect-format.ts'
import { parseInstapaper } from './instapaper.ts'
import { parseJson } from './json.ts'
import { parseNetscape } from './netscape.ts'
import { parseOmnivore } from './omnivore.ts'
import { parsePocketCsv, parsePocketHtml } from './pocket.ts'
import { parseReadlaterCsv, parseReadlaterJson } from './readlater.ts'
import {
  IMPORT_FORMATS,
  IMPORT_MAX_BYTES,
  IMPORT_MAX_EXPANDED_BYTES,
  type ImportFormat,
  ImportFormatError,
  type ParsedImport,
} from './types.ts'
import { parseUrlList } from './url-list.ts'
import { parseWallabag } from './wallabag.ts'
import { isZip, listZip, readZipEntries } from './zip.ts'

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

/**
 * Reads an import file whole: detects its format (or checks the one asked for), opens a zip, and returns
 * every entry in file order, each checked by docs/import-export.md#entry-rules or with the reason it is not
 * imported. Throws ImportFormatError when the file as a whole cannot be read.
 * @see docs/import-export.md#formats and docs/import-export.md#detection
 */
export function parseImportFile(bytes: Uint8Array, options: ParseImportOptions): ParsedImport {
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
  const { now } = options

  if (isZip(bytes)) {
    const found = detectZip(listZip(bytes))
    const format = settle(requested, found, options.contentType)
    const contents = readZipEntries(bytes, found.parts, options.maxExpandedBytes ?? IMPORT_MAX_EXPANDED_BYTES)
    const files = found.parts.map((entry, index) => ({ name: entry.name, text: decodeText(contents[index]!) }))
    if (format === 'omnivore') {
      return {
        format,
        entries: parseOmnivore(
          files.map(({ name, text }) => ({ name, json: parseJson(text, name) })),
          now,
        ),
      }
    }
    return { format, entries: parsePocketCsv(files, now) }
  }

  const binary = describeBinary(bytes)
  // Binary data is no format, so this always throws, saying what the bytes look like.
  if (binary !== null) settle(requested, { format: null, kind: 'binary', description: binary }, options.contentType)
  const text = decodeText(bytes, options.contentType)
  if (text.trim() === '') throw new ImportFormatError('the file is empty')
  const found = detectText(text)
  const format = settle(requested, found, options.contentType)
  return { format, entries: parseText(format, found, text, now) }
}

function parseText(format: ImportFormat, found: DetectedText, text: string, now: Date) {
  const { json } = found
  switch (format) {
    case 'pocket':
      return found.kind === 'html' ? parsePocketHtml(text, now) : parsePocketCsv([{ name: null, text }], now)
    case 'netscape':
      return parseNetscape(text, now)
    case 'instapaper':
      return parseInstapaper(text, now)
    case 'omnivore':
      return parseOmnivore([{ name: null, json }], now)
    case 'wallabag':
      return parseWallabag(json as unknown[], now)
    case 'readlater':
      return json === undefined ? parseReadlaterCsv(text, now) : parseReadlaterJson(json, now)
    case 'urls':
      return parseUrlList(text, now)
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
