import { Zip, ZipDeflate } from 'fflate'

/**
 * The EPUB's container: a zip whose first entry is `mimetype`, stored (not compressed), with no extra
 * field and no data descriptor, so that a reading system can tell the file is an EPUB from its first
 * bytes (`PK…mimetypeapplication/epub+zip` at offset 30; OCF 3.2 §4.3). Everything else is streamed
 * through fflate's `Zip` (docs/import-export.md#epub): each file is deflated and handed on as it is
 * added, so the book is never held whole.
 *
 * fflate's streaming `Zip` writes every entry with a data descriptor (the sizes follow the data), which
 * the OCF allows for the other files but not in the spirit of the first one, and some readers look at the
 * mimetype entry's header alone. So that one entry is written here, by hand (58 bytes), and fflate's
 * output follows it: the offsets in fflate's central directory (its last chunk, written in one piece) are
 * then moved by those 58 bytes, and a directory record for `mimetype` is put first.
 */

const MIMETYPE = new TextEncoder().encode('application/epub+zip')
const MIMETYPE_NAME = new TextEncoder().encode('mimetype')
/** The mimetype entry's local header (30 bytes), its name and its content. */
const MIMETYPE_ENTRY_BYTES = 30 + MIMETYPE_NAME.length + MIMETYPE.length
const CENTRAL_RECORD = 0x02014b50
const END_OF_DIRECTORY = 0x06054b50

/** CRC-32 (the zip's checksum) of a few bytes. */
export function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff
  for (const byte of bytes) {
    crc ^= byte
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1
  }
  return (crc ^ 0xffffffff) >>> 0
}

/** A date as MS-DOS writes it in a zip: [time, date], local time as fflate writes it. */
function dosTime(date: Date): [number, number] {
  return [
    (date.getHours() << 11) | (date.getMinutes() << 5) | (date.getSeconds() >> 1),
    ((date.getFullYear() - 1980) << 9) | ((date.getMonth() + 1) << 5) | date.getDate(),
  ]
}

/**
 * An EPUB being written: `mimetype` first, then each file added, then the directory on `end()`. The bytes
 * made so far are taken with `take()`; nothing is kept once taken but each entry's directory record (as
 * fflate keeps them), so memory holds one file at a time.
 */
export class EpubZip {
  private readonly ready: Uint8Array[] = []
  private failure: Error | null = null
  private readonly zip: Zip
  private readonly mtime: Date

  constructor(mtime: Date) {
    if (Number.isNaN(mtime.getTime())) throw new RangeError('EpubZip: the date is not a date')
    // A zip's dates run from 1980 to 2107; fflate refuses others.
    this.mtime = new Date(Math.min(Math.max(mtime.getTime(), Date.UTC(1980, 0, 2)), Date.UTC(2099, 0, 1)))
    this.ready.push(this.mimetypeEntry())
    this.zip = new Zip((error, chunk, final) => {
      if (error) this.failure = error
      else this.ready.push(final ? this.directory(chunk) : chunk)
    })
  }

  /**
   * Adds a file, deflated (`level` 0 stores it in deflate's stored blocks: for images, already compressed).
   * The name is ASCII (the book's own names, never a title).
   */
  add(name: string, content: string | Uint8Array, level: 0 | 6 = 6): void {
    const file = new ZipDeflate(name, { level })
    file.mtime = this.mtime
    this.zip.add(file)
    file.push(typeof content === 'string' ? new TextEncoder().encode(content) : content, true)
  }

  /** Ends the zip: its central directory follows. */
  end(): void {
    this.zip.end()
  }

  /** The bytes made since the last call; throws what fflate failed with. */
  take(): Uint8Array[] {
    if (this.failure) throw this.failure
    return this.ready.splice(0)
  }

  private mimetypeEntry(): Uint8Array {
    const entry = new Uint8Array(MIMETYPE_ENTRY_BYTES)
    const view = new DataView(entry.buffer)
    const [time, date] = dosTime(this.mtime)
    view.setUint32(0, 0x04034b50, true)
    view.setUint16(4, 10, true) // version needed: 1.0, stored
    view.setUint16(6, 0, true) // no flags: sizes here, no data descriptor
    view.setUint16(8, 0, true) // stored
    view.setUint16(10, time, true)
    view.setUint16(12, date, true)
    view.setUint32(14, crc32(MIMETYPE), true)
    view.setUint32(18, MIMETYPE.length, true)
    view.setUint32(22, MIMETYPE.length, true)
    view.setUint16(26, MIMETYPE_NAME.length, true)
    view.setUint16(28, 0, true) // no extra field
    entry.set(MIMETYPE_NAME, 30)
    entry.set(MIMETYPE, 30 + MIMETYPE_NAME.length)
    return entry
  }

  /** fflate's central directory and end record, with the mimetype entry's record first and every offset after it. */
  private directory(chunk: Uint8Array): Uint8Array {
    const input = new DataView(chunk.buffer, chunk.byteOffset, chunk.byteLength)
    const endAt = chunk.byteLength - 22
    if (input.getUint32(endAt, true) !== END_OF_DIRECTORY) throw new Error('EpubZip: fflate wrote no end record')
    const count = input.getUint16(endAt + 10, true)
    const record = 46 + MIMETYPE_NAME.length
    const out = new Uint8Array(record + chunk.byteLength)
    const view = new DataView(out.buffer)
    const [time, date] = dosTime(this.mtime)
    view.setUint32(0, CENTRAL_RECORD, true)
    view.setUint16(4, 20, true) // made by: 2.0, MS-DOS (as fflate)
    view.setUint16(6, 10, true)
    view.setUint16(8, 0, true)
    view.setUint16(10, 0, true)
    view.setUint16(12, time, true)
    view.setUint16(14, date, true)
    view.setUint32(16, crc32(MIMETYPE), true)
    view.setUint32(20, MIMETYPE.length, true)
    view.setUint32(24, MIMETYPE.length, true)
    view.setUint16(28, MIMETYPE_NAME.length, true)
    // extra, comment, disk, internal and external attributes, offset: all 0.
    out.set(MIMETYPE_NAME, 46)
    out.set(chunk, record)
    let at = record
    for (let i = 0; i < count; i++) {
      if (view.getUint32(at, true) !== CENTRAL_RECORD) throw new Error('EpubZip: unexpected central directory')
      view.setUint32(at + 42, view.getUint32(at + 42, true) + MIMETYPE_ENTRY_BYTES, true)
      at += 46 + view.getUint16(at + 28, true) + view.getUint16(at + 30, true) + view.getUint16(at + 32, true)
    }
    const end = record + endAt
    view.setUint16(end + 8, count + 1, true)
    view.setUint16(end + 10, count + 1, true)
    view.setUint32(end + 12, view.getUint32(end + 12, true) + record, true)
    view.setUint32(end + 16, view.getUint32(end + 16, true) + MIMETYPE_ENTRY_BYTES, true)
    return out
  }
}
