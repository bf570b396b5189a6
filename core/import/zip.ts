import { Inflate } from 'fflate'
import { IMPORT_MAX_EXPANDED_BYTES, IMPORT_MAX_ZIP_ENTRIES, ImportFormatError } from './types.ts'

/** One file of a zip, as its central directory describes it. Nothing is inflated to list it. */
export interface ZipEntry {
  name: string
  /** Compression method: 0 stored, 8 deflated; anything else is refused when the entry is read. */
  method: number
  flags: number
  crc32: number
  compressedSize: number
  /** The size the central directory declares; only a claim until the entry is inflated. */
  size: number
  localHeaderOffset: number
}

/** Local file header, central directory header, end of central directory, and the ZIP64 variants. */
const LOCAL_HEADER = 0x04034b50
const CENTRAL_HEADER = 0x02014b50
const END_OF_DIRECTORY = 0x06054b50
const ZIP64_END_OF_DIRECTORY = 0x06064b50
const ZIP64_LOCATOR = 0x07064b50
/**
 * How much compressed data one inflate step takes: deflate expands at most ~1032×, so a step overshoots
 * the cap by at most ~4 MiB before the count is checked.
 */
const INFLATE_STEP = 4096

export function isZip(bytes: Uint8Array): boolean {
  return bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04
}

/**
 * The entries of a zip, read from its central directory (the table at the end of the file), without
 * inflating anything. Directories are left out. Throws ImportFormatError "the zip is damaged: …", and
 * refuses from the directory alone a zip of more than IMPORT_MAX_ZIP_ENTRIES entries or one whose entries
 * overlap (several names for one payload: each would be inflated and read again, so a 13 KB file could
 * stand for hundreds of megabytes). @see docs/import-export.md#detection
 * @see https://pkware.cachefly.net/webdocs/casestudies/APPNOTE.TXT (4.3.12–4.3.16)
 */
export function listZip(bytes: Uint8Array): ZipEntry[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const end = findEndOfDirectory(view)
  let count = view.getUint16(end + 10, true)
  let directorySize = view.getUint32(end + 12, true)
  let directoryOffset = view.getUint32(end + 16, true)
  if (count === 0xffff || directorySize === 0xffffffff || directoryOffset === 0xffffffff) {
    const locator = end - 20
    if (locator < 0 || view.getUint32(locator, true) !== ZIP64_LOCATOR) {
      throw damaged('its ZIP64 end of central directory is missing')
    }
    const zip64End = safeNumber(view.getBigUint64(locator + 8, true))
    if (zip64End + 56 > end || view.getUint32(zip64End, true) !== ZIP64_END_OF_DIRECTORY) {
      throw damaged('its ZIP64 end of central directory is missing')
    }
    count = safeNumber(view.getBigUint64(zip64End + 32, true))
    directorySize = safeNumber(view.getBigUint64(zip64End + 40, true))
    directoryOffset = safeNumber(view.getBigUint64(zip64End + 48, true))
  }
  if (directoryOffset + directorySize > bytes.length) {
    throw damaged('its central directory lies outside the file (was the file cut short?)')
  }
  if (count > IMPORT_MAX_ZIP_ENTRIES) {
    throw new ImportFormatError(
      `the zip holds ${count.toLocaleString('en')} entries; an import reads zips of at most ${IMPORT_MAX_ZIP_ENTRIES.toLocaleString('en')}`,
    )
  }

  const all: ZipEntry[] = []
  let at = directoryOffset
  const names = new TextDecoder()
  for (let index = 0; index < count; index++) {
    if (at + 46 > bytes.length || view.getUint32(at, true) !== CENTRAL_HEADER) {
      throw damaged(`entry ${index + 1} of its central directory is unreadable`)
    }
    const nameLength = view.getUint16(at + 28, true)
    const extraLength = view.getUint16(at + 30, true)
    const commentLength = view.getUint16(at + 32, true)
    const next = at + 46 + nameLength + extraLength + commentLength
    if (next > bytes.length) throw damaged(`entry ${index + 1} of its central directory is cut short`)
    const entry: ZipEntry = {
      name: names.decode(bytes.subarray(at + 46, at + 46 + nameLength)),
      method: view.getUint16(at + 10, true),
      flags: view.getUint16(at + 8, true),
      crc32: view.getUint32(at + 16, true),
      compressedSize: view.getUint32(at + 20, true),
      size: view.getUint32(at + 24, true),
      localHeaderOffset: view.getUint32(at + 42, true),
    }
    readZip64Extra(view, at + 46 + nameLength, extraLength, entry)
    all.push(entry)
    at = next
  }
  refuseOverlaps(all, directoryOffset)
  return all.filter((entry) => !entry.name.endsWith('/'))
}

/**
 * Every entry's local header and data must lie apart from the others' and before the central directory.
 * From the directory alone: an entry takes at least its 30-byte local header and its compressed size.
 */
function refuseOverlaps(entries: readonly ZipEntry[], directoryOffset: number): void {
  const byOffset = [...entries].sort((a, b) => a.localHeaderOffset - b.localHeaderOffset)
  for (let index = 0; index < byOffset.length; index++) {
    const entry = byOffset[index]!
    const end = entry.localHeaderOffset + 30 + entry.compressedSize
    const limit = index + 1 < byOffset.length ? byOffset[index + 1]!.localHeaderOffset : directoryOffset
    if (end > limit) {
      const other = byOffset[index + 1]
      throw damaged(
        other === undefined
          ? `${entry.name} runs into its central directory`
          : `its entries overlap (${entry.name} and ${other.name} share bytes)`,
      )
    }
  }
}

/**
 * Inflates the given entries, in order, one at a time as they are asked for (only the one in hand is
 * kept), and yields their bytes. Refused with ImportFormatError "the zip
 * expands past …" before anything is inflated when their declared sizes add up past the cap, and as soon
 * as the bytes really produced pass it, since declared sizes can lie (a zip bomb declares a few bytes and
 * inflates to gigabytes): the rest of that entry and the entries after it are never inflated.
 */
export function* inflateZipEntries(
  bytes: Uint8Array,
  entries: readonly ZipEntry[],
  maxExpandedBytes: number = IMPORT_MAX_EXPANDED_BYTES,
): Generator<Uint8Array, void, undefined> {
  const declared = entries.reduce((sum, entry) => sum + entry.size, 0)
  if (declared > maxExpandedBytes) throw tooLarge(maxExpandedBytes)
  let produced = 0
  for (const entry of entries) {
    const data = compressedData(bytes, entry)
    let content: Uint8Array
    if (entry.method === 0) {
      produced += data.length
      if (produced > maxExpandedBytes) throw tooLarge(maxExpandedBytes)
      content = data
    } else if (entry.method === 8) {
      if (data.length === 0) throw damaged(`${entry.name} has no data`)
      const chunks: Uint8Array[] = []
      let length = 0
      const inflate = new Inflate((chunk) => {
        chunks.push(chunk)
        length += chunk.length
        produced += chunk.length
      })
      for (let offset = 0; offset < data.length; offset += INFLATE_STEP) {
        try {
          inflate.push(data.subarray(offset, offset + INFLATE_STEP), offset + INFLATE_STEP >= data.length)
        } catch (error) {
          if (produced > maxExpandedBytes) throw tooLarge(maxExpandedBytes)
          throw damaged(`${entry.name} cannot be inflated (${error instanceof Error ? error.message : error})`)
        }
        if (produced > maxExpandedBytes) throw tooLarge(maxExpandedBytes)
        // An entry that inflates past the size it declares is lying: stop at once rather than at the cap.
        if (length > entry.size) throw damaged(`${entry.name} inflates past the ${entry.size} bytes it declares`)
      }
      content = concat(chunks, length)
    } else {
      throw new ImportFormatError(
        `the zip stores ${entry.name} with compression method ${entry.method}; only stored and deflated entries are read`,
      )
    }
    if (content.length !== entry.size || crc32(content) !== entry.crc32) {
      throw damaged(`${entry.name} does not match its recorded size and checksum`)
    }
    yield content
  }
}

/** Every entry inflated at once (tests, small zips): {@link inflateZipEntries} collected. */
export function readZipEntries(
  bytes: Uint8Array,
  entries: readonly ZipEntry[],
  maxExpandedBytes: number = IMPORT_MAX_EXPANDED_BYTES,
): Uint8Array[] {
  return [...inflateZipEntries(bytes, entries, maxExpandedBytes)]
}

function findEndOfDirectory(view: DataView): number {
  // The record is 22 bytes plus a comment of at most 65,535 bytes, at the very end of the file.
  const last = view.byteLength - 22
  for (let at = last; at >= 0 && at >= last - 0xffff; at--) {
    if (view.getUint32(at, true) === END_OF_DIRECTORY) return at
  }
  throw damaged('its end of central directory is missing (was the file cut short?)')
}

/** ZIP64 extended information (header 0x0001): the 64-bit sizes and offset, for the fields set to 0xffffffff. */
function readZip64Extra(view: DataView, start: number, length: number, entry: ZipEntry): void {
  for (let at = start; at + 4 <= start + length; ) {
    const id = view.getUint16(at, true)
    const size = view.getUint16(at + 2, true)
    if (id === 0x0001) {
      let field = at + 4
      const take = () => {
        if (field + 8 > at + 4 + size) throw damaged(`${entry.name} has a short ZIP64 extra field`)
        const value = safeNumber(view.getBigUint64(field, true))
        field += 8
        return value
      }
      if (entry.size === 0xffffffff) entry.size = take()
      if (entry.compressedSize === 0xffffffff) entry.compressedSize = take()
      if (entry.localHeaderOffset === 0xffffffff) entry.localHeaderOffset = take()
      return
    }
    at += 4 + size
  }
}

function compressedData(bytes: Uint8Array, entry: ZipEntry): Uint8Array {
  if (entry.flags & 0x0001)
    throw new ImportFormatError(`the zip is encrypted (${entry.name}); export it again without a password`)
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const header = entry.localHeaderOffset
  if (header + 30 > bytes.length || view.getUint32(header, true) !== LOCAL_HEADER) {
    throw damaged(`the header of ${entry.name} is missing`)
  }
  // The local header's name and extra field can differ in length from the central directory's.
  const start = header + 30 + view.getUint16(header + 26, true) + view.getUint16(header + 28, true)
  if (start + entry.compressedSize > bytes.length) {
    throw damaged(`${entry.name} is cut short (was the file cut short?)`)
  }
  return bytes.subarray(start, start + entry.compressedSize)
}

function concat(chunks: readonly Uint8Array[], length: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!
  const joined = new Uint8Array(length)
  let at = 0
  for (const chunk of chunks) {
    joined.set(chunk, at)
    at += chunk.length
  }
  return joined
}

function safeNumber(value: bigint): number {
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw damaged('it records a size or offset too large to be real')
  return Number(value)
}

let crcTable: Uint32Array | null = null

/** CRC-32 (IEEE 802.3), as zip records it for each entry. */
export function crc32(data: Uint8Array): number {
  if (crcTable === null) {
    crcTable = new Uint32Array(256)
    for (let n = 0; n < 256; n++) {
      let c = n
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
      crcTable[n] = c >>> 0
    }
  }
  let crc = 0xffffffff
  for (let i = 0; i < data.length; i++) crc = crcTable[(crc ^ data[i]!) & 0xff]! ^ (crc >>> 8)
  return (crc ^ 0xffffffff) >>> 0
}

function damaged(detail: string): ImportFormatError {
  return new ImportFormatError(`the zip is damaged: ${detail}`)
}

function tooLarge(maxExpandedBytes: number): ImportFormatError {
  return new ImportFormatError(`the zip expands past ${formatBytes(maxExpandedBytes)}`)
}

function formatBytes(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`
  return bytes % 1024 === 0 ? `${bytes / 1024} KiB` : `${bytes} bytes`
}
