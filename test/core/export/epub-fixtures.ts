import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { unzipSync } from 'fflate'

// Reading a book back (docs/import-export.md#epub): its zip entry by entry, its package document and its
// contents, to check what the book holds without trusting the code that wrote it. Shared by the core tests,
// the HTTP tests and the epubcheck test.

/** Real images, made by Chromium's encoders (PNG, JPEG, WebP, 96×64) and by hand (a 2×2 GIF). */
const fixture = (name: string) =>
  new Uint8Array(readFileSync(join(dirname(fileURLToPath(import.meta.url)), '../../fixtures/epub', name)))
export const IMAGES = {
  png: fixture('figure.png'),
  jpeg: fixture('figure.jpg'),
  gif: fixture('figure.gif'),
  webp: fixture('figure.webp'),
}

export interface ZipEntry {
  name: string
  method: number
  flags: number
  offset: number
  extraLength: number
}

/** The zip's entries in the order of its central directory (the order they were written). */
export function zipEntries(bytes: Uint8Array): ZipEntry[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const end = bytes.byteLength - 22
  assert.equal(view.getUint32(end, true), 0x06054b50, 'the zip ends with its end record (no comment)')
  const count = view.getUint16(end + 10, true)
  let at = view.getUint32(end + 16, true)
  const entries: ZipEntry[] = []
  for (let i = 0; i < count; i++) {
    assert.equal(view.getUint32(at, true), 0x02014b50)
    const nameLength = view.getUint16(at + 28, true)
    const extra = view.getUint16(at + 30, true)
    const comment = view.getUint16(at + 32, true)
    const offset = view.getUint32(at + 42, true)
    const name = new TextDecoder().decode(bytes.subarray(at + 46, at + 46 + nameLength))
    assert.equal(view.getUint32(offset, true), 0x04034b50, `${name}: a local header at its offset`)
    entries.push({
      name,
      method: view.getUint16(offset + 8, true),
      flags: view.getUint16(offset + 6, true),
      offset,
      extraLength: view.getUint16(offset + 28, true),
    })
    at += 46 + nameLength + extra + comment
  }
  return entries
}

export interface ReadBook {
  entries: ZipEntry[]
  files: Record<string, Uint8Array>
  text(name: string): string
  opf: string
  manifest: { id: string; href: string; mediaType: string; fallback: string | null; properties: string | null }[]
  spine: string[]
  /** The contents' entries: [href, title] in order. */
  toc: [string, string][]
  identifier: string
  language: string
  title: string
}

const decodeXml = (text: string) =>
  text
    .replace(/&#(\d+);/g, (_, code) => String.fromCodePoint(Number(code)))
    .replace(/&(lt|gt|amp|quot);/g, (_, name) => ({ lt: '<', gt: '>', amp: '&', quot: '"' })[name as 'lt'])

const attribute = (tag: string, name: string) => {
  const match = new RegExp(`\\s${name}="([^"]*)"`).exec(tag)
  return match ? decodeXml(match[1]!) : null
}

/** The book read back, with the structural checks every book must pass (mimetype first and stored, every file listed). */
export function readBook(bytes: Uint8Array): ReadBook {
  const entries = zipEntries(bytes)
  const [first] = entries
  assert.equal(first?.name, 'mimetype', 'mimetype is the first entry')
  assert.equal(first.offset, 0)
  assert.equal(first.method, 0, 'mimetype is stored, not compressed')
  assert.equal(first.flags & 8, 0, 'mimetype has no data descriptor')
  assert.equal(first.extraLength, 0, 'mimetype has no extra field')
  assert.equal(new TextDecoder().decode(bytes.subarray(30, 58)), 'mimetypeapplication/epub+zip')
  const files = unzipSync(bytes)
  assert.deepEqual(Object.keys(files).sort(), entries.map((entry) => entry.name).sort())
  const text = (name: string) => {
    const file = files[name]
    assert.ok(file, `${name} is in the book`)
    return new TextDecoder('utf-8', { fatal: true }).decode(file)
  }
  const container = text('META-INF/container.xml')
  const opfPath = /full-path="([^"]+)"/.exec(container)![1]!
  const opf = text(opfPath)
  const base = opfPath.slice(0, opfPath.lastIndexOf('/') + 1)
  const manifest = [...opf.matchAll(/<item\s[^>]*\/>/g)].map(([tag]) => ({
    id: attribute(tag, 'id')!,
    href: attribute(tag, 'href')!,
    mediaType: attribute(tag, 'media-type')!,
    fallback: attribute(tag, 'fallback'),
    properties: attribute(tag, 'properties'),
  }))
  // Every file but the container's own is listed in the package, and every listed file is there.
  const listed = manifest.map((item) => base + item.href).sort()
  const present = Object.keys(files)
    .filter((name) => name !== 'mimetype' && name !== 'META-INF/container.xml' && name !== opfPath)
    .sort()
  assert.deepEqual(present, listed, 'the package lists every file of the book')
  const spine = [...opf.matchAll(/<itemref idref="([^"]+)"\/>/g)].map((match) => match[1]!)
  const navItem = manifest.find((item) => item.properties === 'nav')!
  const nav = text(base + navItem.href)
  const toc = /<nav epub:type="toc"[^>]*>([^]*?)<\/nav>/.exec(nav)![1]!
  return {
    entries,
    files,
    text,
    opf,
    manifest,
    spine,
    toc: [...toc.matchAll(/<a href="([^"]+)">([^<]*)<\/a>/g)].map((match) => [
      decodeXml(match[1]!),
      decodeXml(match[2]!),
    ]),
    identifier: decodeXml(/<dc:identifier id="book-id">([^<]*)</.exec(opf)![1]!),
    language: /<dc:language>([^<]*)</.exec(opf)![1]!,
    title: decodeXml(/<dc:title>([^<]*)</.exec(opf)![1]!),
  }
}

/** All of a stream's chunks as one array. */
export async function bytesOf(chunks: AsyncIterable<Uint8Array | string>): Promise<Uint8Array> {
  const parts: Uint8Array[] = []
  for await (const chunk of chunks) parts.push(typeof chunk === 'string' ? new TextEncoder().encode(chunk) : chunk)
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.byteLength, 0))
  let at = 0
  for (const part of parts) {
    out.set(part, at)
    at += part.byteLength
  }
  return out
}
