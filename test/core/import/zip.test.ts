import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { deflateSync, zipSync } from 'fflate'
import { parseImportFile } from '../../../core/import/parse-import.ts'
import { IMPORT_MAX_EXPANDED_BYTES, IMPORT_MAX_ZIP_ENTRIES, ImportFormatError } from '../../../core/import/types.ts'
import { crc32, listZip, readZipEntries } from '../../../core/import/zip.ts'
import { craftZip, omnivoreZip, pocketZip, readFixture } from '../../fixtures/import/read-fixture.ts'

// docs/import-export.md#detection (zip): the central directory first, nothing inflated that is not read,
// and the expanded size counted as it is produced, so a lying zip stops early.

const NOW = new Date('2025-06-01T00:00:00.000Z')
const encoder = new TextEncoder()
const HEADER = 'title,url,time_added,tags,status\n'
const SMALL_CAP = 64 * 1024

/** Bytes that deflate cannot shrink (a fixed pseudo-random sequence), so deflate stores them as they are. */
function incompressible(length: number): Uint8Array {
  const bytes = new Uint8Array(length)
  let state = 0x12345678
  for (let i = 0; i < length; i++) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0
    bytes[i] = state >>> 24
  }
  return bytes
}

/** Deflate data whose tail is garbage: inflating it to the end fails, so reaching the end shows. */
function poisonedTail(length: number, goodPrefix: number): Uint8Array {
  const data = deflateSync(incompressible(length), { level: 0 })
  data.fill(0xff, goodPrefix)
  return data
}

function expectRefusal(run: () => unknown, message: string | RegExp) {
  assert.throws(run, (error: unknown) => {
    assert.ok(error instanceof ImportFormatError, String(error))
    if (typeof message === 'string') assert.equal(error.message, message)
    else assert.match(error.message, message)
    return true
  })
}

describe('listZip()', () => {
  test('lists the central directory without inflating anything', () => {
    const entries = listZip(omnivoreZip())
    assert.deepEqual(
      entries.map((entry) => entry.name),
      [
        'metadata_2_to_3.json',
        'metadata_0_to_2.json',
        'content/the-tyranny-of-obviousness-18a7f7a3b2e.html',
        'highlights/the-tyranny-of-obviousness-18a7f7a3b2e.md',
        'highlights/large-language-models-explained-18a7f7a3b2f.md',
        'highlights/rss-is-back-18a7f7a3b30.md',
      ],
    )
  })

  test('leaves directories out', () => {
    const zip = zipSync({ folder: {}, 'folder/file.csv': encoder.encode('a') })
    assert.deepEqual(
      listZip(zip).map((entry) => entry.name),
      ['folder/file.csv'],
    )
  })
})

describe('ZIP64', () => {
  const csv = encoder.encode(`${HEADER}A,https://a.example/,1600000000,,unread\n`)
  for (const zip64End of [false, true]) {
    test(
      zip64End ? 'sizes and the end of the central directory in ZIP64 records' : 'sizes in a ZIP64 extra field',
      () => {
        const crafted = craftZip(
          [{ name: 'part_000000.csv', data: csv, method: 0, declaredSize: csv.length, crc32: crc32(csv), zip64: true }],
          { zip64End },
        )
        const [entry] = listZip(crafted)
        assert.equal(entry?.size, csv.length)
        assert.equal(entry?.compressedSize, csv.length)
        assert.equal(parseImportFile(crafted, { now: NOW }).entries.length, 1)
      },
    )
  }
})

describe('a truncated or corrupt zip is damaged', () => {
  const zip = pocketZip()
  const cuts = [zip.length - 1, zip.length - 22, Math.floor(zip.length / 2), 30, 4]
  for (const cut of cuts) {
    test(`cut to ${cut} of ${zip.length} bytes`, () => {
      expectRefusal(() => parseImportFile(zip.subarray(0, cut), { now: NOW }), /^the zip is damaged: /)
    })
  }

  test('a central directory that points past the end of the file', () => {
    const broken = zip.slice()
    const view = new DataView(broken.buffer)
    view.setUint32(broken.length - 22 + 16, broken.length * 2, true)
    expectRefusal(
      () => parseImportFile(broken, { now: NOW }),
      'the zip is damaged: its central directory lies outside the file (was the file cut short?)',
    )
  })

  test('a flipped byte in the compressed data', () => {
    const [first] = listZip(zip)
    const broken = zip.slice()
    // Past the 30-byte local header and the 15-byte name, into the deflate stream.
    const at = first!.localHeaderOffset + 30 + 15 + 20
    broken[at] = broken[at]! ^ 0x55
    expectRefusal(() => parseImportFile(broken, { now: NOW }), /^the zip is damaged: part_00000[01]\.csv /)
  })

  test('an entry whose checksum does not match', () => {
    const text = encoder.encode(`${HEADER}A,https://a.example/,1600000000,,unread\n`)
    const crafted = craftZip([
      { name: 'part_000000.csv', data: text, method: 0, declaredSize: text.length, crc32: crc32(text) ^ 1 },
    ])
    expectRefusal(
      () => parseImportFile(crafted, { now: NOW }),
      'the zip is damaged: part_000000.csv does not match its recorded size and checksum',
    )
  })

  test('an encrypted entry', () => {
    const text = encoder.encode(HEADER)
    const crafted = craftZip([
      { name: 'part_000000.csv', data: text, method: 0, declaredSize: text.length, crc32: crc32(text), flags: 1 },
    ])
    expectRefusal(
      () => parseImportFile(crafted, { now: NOW }),
      'the zip is encrypted (part_000000.csv); export it again without a password',
    )
  })

  test('an entry compressed with a method other than deflate', () => {
    const text = encoder.encode(HEADER)
    const crafted = craftZip([
      { name: 'part_000000.csv', data: text, method: 0, declaredSize: text.length, crc32: crc32(text) },
    ])
    new DataView(crafted.buffer).setUint16(8, 14, true)
    const central = crafted.length - 22 - (46 + 'part_000000.csv'.length)
    new DataView(crafted.buffer).setUint16(central + 10, 14, true)
    expectRefusal(
      () => parseImportFile(crafted, { now: NOW }),
      'the zip stores part_000000.csv with compression method 14; only stored and deflated entries are read',
    )
  })
})

describe('the expanded size is capped', () => {
  test('declared sizes past 200 MiB are refused before anything is inflated', () => {
    // The data is not deflate at all: inflating it would say "damaged", so "expands past" shows it never was.
    const crafted = craftZip([
      { name: 'part_000000.csv', data: new Uint8Array(64).fill(0xff), method: 8, declaredSize: 201 * 1024 * 1024 },
    ])
    expectRefusal(() => parseImportFile(crafted, { now: NOW }), 'the zip expands past 200 MiB')
    assert.equal(IMPORT_MAX_EXPANDED_BYTES, 200 * 1024 * 1024)
  })

  test('declared sizes add up across the entries that are read', () => {
    const crafted = craftZip([
      { name: 'part_000000.csv', data: new Uint8Array(8), method: 8, declaredSize: 40 * 1024 },
      { name: 'part_000001.csv', data: new Uint8Array(8), method: 8, declaredSize: 40 * 1024 },
    ])
    expectRefusal(
      () => parseImportFile(crafted, { now: NOW, maxExpandedBytes: SMALL_CAP }),
      'the zip expands past 64 KiB',
    )
  })

  test('a zip bomb (declared small, inflates big) stops when the real count passes the cap', () => {
    // A CSV of 4 MiB that deflates to a few kilobytes, declared as 100 bytes.
    const huge = encoder.encode(HEADER + 'A,https://a.example/,1600000000,,unread\n'.repeat(100_000))
    const bomb = deflateSync(huge)
    assert.ok(bomb.length < 64 * 1024 && huge.length > 2 * SMALL_CAP)
    const crafted = craftZip([{ name: 'part_000000.csv', data: bomb, method: 8, declaredSize: 100 }])
    expectRefusal(
      () => parseImportFile(crafted, { now: NOW, maxExpandedBytes: SMALL_CAP }),
      'the zip expands past 64 KiB',
    )
  })

  test('…without inflating the rest of the entry', () => {
    // 320 KiB stored in deflate blocks whose last 128 KiB are garbage: inflating to the end would fail.
    const data = poisonedTail(320 * 1024, 192 * 1024)
    // Declared at its real size, so only the cap (not the entry's own claim) can stop it early.
    const crafted = craftZip([{ name: 'part_000000.csv', data, method: 8, declaredSize: 320 * 1024 }])
    expectRefusal(() => readZipEntries(crafted, listZip(crafted), SMALL_CAP), 'the zip expands past 64 KiB')
    // With room to reach the garbage, the same entry is damaged: so above, it was never reached.
    expectRefusal(
      () => readZipEntries(crafted, listZip(crafted), 1024 * 1024),
      /^the zip is damaged: part_000000\.csv cannot be inflated/,
    )
  })

  test('…and without inflating the entries after it', () => {
    const bomb = deflateSync(new Uint8Array(1024 * 1024))
    const garbage = new Uint8Array(256).fill(0xff)
    const crafted = craftZip([
      { name: 'part_000000.csv', data: bomb, method: 8, declaredSize: 10 },
      { name: 'part_000001.csv', data: garbage, method: 8, declaredSize: 10 },
    ])
    expectRefusal(
      () => parseImportFile(crafted, { now: NOW, maxExpandedBytes: SMALL_CAP }),
      'the zip expands past 64 KiB',
    )
  })

  test('stored entries count too', () => {
    const big = new Uint8Array(SMALL_CAP + 1).fill(0x41)
    const crafted = craftZip([{ name: 'part_000000.csv', data: big, method: 0, declaredSize: 1, crc32: crc32(big) }])
    expectRefusal(
      () => parseImportFile(crafted, { now: NOW, maxExpandedBytes: SMALL_CAP }),
      'the zip expands past 64 KiB',
    )
  })

  test("Omnivore's content past what is left of the cap is left unread; the entries and their highlights are read", () => {
    // 1 MiB of content under a 64 KiB cap: reading it would pass the cap (docs/import-export.md#omnivore-highlights).
    const parsed = parseImportFile(omnivoreZip({ padContent: 1024 * 1024 }), { now: NOW, maxExpandedBytes: SMALL_CAP })
    assert.equal(parsed.format, 'omnivore')
    assert.equal(parsed.entries.length, 3)
    const first = parsed.entries[0]!
    assert.ok(first.ok)
    assert.equal(first.entry.highlights.length, 4)
    assert.equal(first.entry.page, null)
    assert.equal(first.entry.highlightProblem, null)
  })

  test("an Omnivore highlight file past what is left of the cap is named in its entry's error; the entry is read", () => {
    const big =
      readFixture('omnivore/metadata_0_to_2.json').length + readFixture('omnivore/metadata_2_to_3.json').length
    const parsed = parseImportFile(omnivoreZip({ content: false }), { now: NOW, maxExpandedBytes: big + 10 })
    const first = parsed.entries[0]!
    assert.ok(first.ok)
    assert.deepEqual(first.entry.highlights, [])
    assert.equal(
      first.entry.highlightProblem,
      'metadata_0_to_2.json entry 1: highlights/the-tyranny-of-obviousness-18a7f7a3b2e.md was not read: the zip expands past the limit of an import',
    )
  })

  test('a zip within the cap is read', () => {
    const parsed = parseImportFile(pocketZip(), { now: NOW, maxExpandedBytes: SMALL_CAP })
    assert.equal(parsed.entries.length, 5)
  })
})

/**
 * A zip whose central directory names `copies` entries that all point at the one local header of `zip`'s
 * first entry (the "many names, one payload" bomb): each central record is the first one with a new name.
 */
function overlappingZip(zip: Uint8Array, copies: number): Uint8Array {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength)
  const end = zip.length - 22
  const directoryOffset = view.getUint32(end + 16, true)
  const nameLength = view.getUint16(directoryOffset + 28, true)
  const record = zip.slice(directoryOffset, directoryOffset + 46 + nameLength)
  const records: Uint8Array[] = []
  for (let index = 0; index < copies; index++) {
    const copy = record.slice()
    // Same length names: part_000000.csv, part_000001.csv, … (the last digits carry the index).
    const digits = String(index).padStart(6, '0')
    copy.set(encoder.encode(`part_${digits}.csv`).subarray(0, nameLength), 46)
    records.push(copy)
  }
  const directory = new Uint8Array(records.reduce((sum, r) => sum + r.length, 0))
  let at = 0
  for (const r of records) {
    directory.set(r, at)
    at += r.length
  }
  const out = new Uint8Array(directoryOffset + directory.length + 22)
  out.set(zip.subarray(0, directoryOffset))
  out.set(directory, directoryOffset)
  const tail = zip.slice(end, end + 22)
  const tailView = new DataView(tail.buffer)
  tailView.setUint16(8, copies, true)
  tailView.setUint16(10, copies, true)
  tailView.setUint32(12, directory.length, true)
  out.set(tail, directoryOffset + directory.length)
  return out
}

describe('a zip is refused from its central directory alone', () => {
  test('entries that overlap (190 names for one payload) are refused before anything is inflated', () => {
    const payload = encoder.encode(HEADER + 'A,https://a.example/,1600000000,,unread\n'.repeat(1000))
    const one = zipSync({ 'part_000000.csv': payload })
    const bomb = overlappingZip(one, 190)
    assert.equal(listZip(one).length, 1)
    expectRefusal(
      () => parseImportFile(bomb, { now: NOW }),
      'the zip is damaged: its entries overlap (part_000000.csv and part_000001.csv share bytes)',
    )
  })

  test('an entry whose data would run into the central directory', () => {
    const text = encoder.encode(HEADER)
    const crafted = craftZip([
      { name: 'part_000000.csv', data: text, method: 0, declaredSize: text.length, crc32: crc32(text) },
    ])
    // The central record's compressed size, made larger than the bytes before the directory.
    const central = crafted.length - 22 - (46 + 'part_000000.csv'.length)
    new DataView(crafted.buffer).setUint32(central + 20, text.length + 1000, true)
    expectRefusal(() => listZip(crafted), 'the zip is damaged: part_000000.csv runs into its central directory')
  })

  test(`more than ${IMPORT_MAX_ZIP_ENTRIES.toLocaleString('en')} entries are refused by the count alone`, () => {
    // A 16-bit count cannot pass the cap; a ZIP64 end record's can. The directory itself is never read.
    assert.ok(0xffff < IMPORT_MAX_ZIP_ENTRIES)
    const crafted = craftZip(
      [{ name: 'part_000000.csv', data: encoder.encode(HEADER), method: 0, declaredSize: HEADER.length, zip64: true }],
      { zip64End: true },
    )
    // The ZIP64 end record's count (8 bytes at +32 of that record), set past the cap.
    const cview = new DataView(crafted.buffer)
    const locator = crafted.length - 22 - 20
    const zip64End = Number(cview.getBigUint64(locator + 8, true))
    cview.setBigUint64(zip64End + 24, BigInt(IMPORT_MAX_ZIP_ENTRIES + 1), true)
    cview.setBigUint64(zip64End + 32, BigInt(IMPORT_MAX_ZIP_ENTRIES + 1), true)
    expectRefusal(() => listZip(crafted), `the zip holds 100,001 entries; an import reads zips of at most 100,000`)
  })

  test('an entry that inflates past the size it declares stops at its first step, far below the cap', () => {
    // 1 MiB of deflate blocks whose second half is garbage, declared as 1,000 bytes: if inflating went on
    // towards the 200 MiB cap, it would reach the garbage and say "cannot be inflated" instead.
    const data = poisonedTail(1024 * 1024, 512 * 1024)
    const crafted = craftZip([{ name: 'part_000000.csv', data, method: 8, declaredSize: 1000 }])
    expectRefusal(
      () => parseImportFile(crafted, { now: NOW }),
      'the zip is damaged: part_000000.csv inflates past the 1000 bytes it declares',
    )
  })
})

describe('crc32()', () => {
  test('matches the standard check value', () => {
    assert.equal(crc32(encoder.encode('123456789')), 0xcbf43926)
    assert.equal(crc32(new Uint8Array(0)), 0)
  })
})
