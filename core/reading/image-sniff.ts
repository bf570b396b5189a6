/**
 * What an archived image is, read from its bytes alone (docs/enrichment.md#images): the type a site's
 * Content-Type claims is never believed, an HTML page or an SVG served as `image/png` is not an image here,
 * and the dimensions a header declares are checked without decoding a pixel, so a tiny file that declares
 * 100,000 × 100,000 pixels (a decompression bomb) is refused before anyone's browser tries to decode it.
 */

/** The raster types an article may keep (no SVG: it is a document that can carry script). */
export const ARCHIVED_IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/avif'] as const
export type ArchivedImageType = (typeof ARCHIVED_IMAGE_TYPES)[number]

/** At most this many pixels (width × height, per frame of an animation) may an archived image declare. */
export const IMAGE_MAX_PIXELS = 50_000_000

export interface SniffedImage {
  mediaType: ArchivedImageType
  width: number
  height: number
}

/** Why bytes are not an image we keep. */
export type SniffRefusal = 'not an image' | 'no dimensions' | 'too many pixels'

/**
 * The image's type and declared size, or why it is refused: not one of the five raster formats by its
 * signature, a header without readable dimensions (or a zero one), or more than {@link IMAGE_MAX_PIXELS}.
 * Reads headers only: never decodes, so its cost does not grow with the declared size.
 */
export function sniffImage(bytes: Uint8Array): SniffedImage | SniffRefusal {
  const found = sniffType(bytes)
  if (found === null) return 'not an image'
  const sizes = dimensionsOf(found, bytes)
  if (sizes === null || sizes.length === 0) return 'no dimensions'
  let widest: [number, number] = [0, 0]
  for (const [width, height] of sizes) {
    if (!(width > 0 && height > 0)) return 'no dimensions'
    if (width * height > IMAGE_MAX_PIXELS) return 'too many pixels'
    if (width * height > widest[0] * widest[1]) widest = [width, height]
  }
  return { mediaType: found, width: widest[0], height: widest[1] }
}

/** Whether the first bytes can still open one of the five formats (a fetch stops reading as soon as they cannot). */
export function mayBeImage(head: Uint8Array): boolean {
  if (head.length < SIGNATURE_BYTES) return true
  return sniffType(head) !== null
}

/** Bytes enough to tell the five formats apart. */
export const SIGNATURE_BYTES = 16

const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]

function startsWith(bytes: Uint8Array, prefix: readonly number[], at = 0): boolean {
  if (bytes.length < at + prefix.length) return false
  return prefix.every((byte, i) => bytes[at + i] === byte)
}

const ascii = (bytes: Uint8Array, at: number, length: number): string =>
  at + length > bytes.length ? '' : String.fromCharCode(...bytes.subarray(at, at + length))

function sniffType(bytes: Uint8Array): ArchivedImageType | null {
  if (startsWith(bytes, PNG)) return 'image/png'
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'image/jpeg'
  const gif = ascii(bytes, 0, 6)
  if (gif === 'GIF87a' || gif === 'GIF89a') return 'image/gif'
  if (ascii(bytes, 0, 4) === 'RIFF' && ascii(bytes, 8, 4) === 'WEBP') return 'image/webp'
  if (ascii(bytes, 4, 4) === 'ftyp' && isAvifBrand(bytes)) return 'image/avif'
  return null
}

/** An ISO-BMFF `ftyp` whose major or a compatible brand is AVIF's (`avif` still, `avis` sequence). */
function isAvifBrand(bytes: Uint8Array): boolean {
  const size = u32(bytes, 0)
  if (size === null || size < 16) return false
  const end = Math.min(size, bytes.length)
  const brands = [ascii(bytes, 8, 4)]
  for (let at = 16; at + 4 <= end; at += 4) brands.push(ascii(bytes, at, 4))
  return brands.includes('avif') || brands.includes('avis')
}

const u16be = (b: Uint8Array, at: number): number | null => (at + 2 > b.length ? null : (b[at]! << 8) | b[at + 1]!)
const u16le = (b: Uint8Array, at: number): number | null => (at + 2 > b.length ? null : b[at]! | (b[at + 1]! << 8))
const u24le = (b: Uint8Array, at: number): number | null =>
  at + 3 > b.length ? null : b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16)
function u32(b: Uint8Array, at: number): number | null {
  if (at + 4 > b.length) return null
  return b[at]! * 0x1000000 + ((b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!)
}

/** Every size the header declares (one, or one per frame or item), or null when it cannot be read. */
function dimensionsOf(type: ArchivedImageType, bytes: Uint8Array): [number, number][] | null {
  switch (type) {
    case 'image/png':
      return pngSize(bytes)
    case 'image/jpeg':
      return jpegSize(bytes)
    case 'image/gif':
      return gifSizes(bytes)
    case 'image/webp':
      return webpSize(bytes)
    case 'image/avif':
      return avifSizes(bytes)
  }
}

/** The IHDR chunk, which the format requires first. APNG frames may not exceed it. */
function pngSize(bytes: Uint8Array): [number, number][] | null {
  if (ascii(bytes, 12, 4) !== 'IHDR') return null
  const width = u32(bytes, 16)
  const height = u32(bytes, 20)
  return width === null || height === null ? null : [[width, height]]
}

/** The first start-of-frame segment, before the first scan; a height of 0 (set later by DNL) is refused. */
function jpegSize(bytes: Uint8Array): [number, number][] | null {
  let at = 2
  while (at + 4 <= bytes.length) {
    if (bytes[at] !== 0xff) return null
    const marker = bytes[at + 1]!
    // Fill bytes, and markers without a length (TEM, RSTn).
    if (marker === 0xff) {
      at += 1
      continue
    }
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      at += 2
      continue
    }
    // A scan (or the end) before any frame header: nothing tells the size.
    if (marker === 0xda || marker === 0xd9) return null
    const length = u16be(bytes, at + 2)
    if (length === null || length < 2) return null
    const isFrame = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc
    if (isFrame) {
      const height = u16be(bytes, at + 5)
      const width = u16be(bytes, at + 7)
      return height === null || width === null ? null : [[width, height]]
    }
    at += 2 + length
  }
  return null
}

/**
 * The logical screen and every frame's extent (its offset plus its size): a decoder may grow its canvas
 * to hold a frame that does not fit the screen. Walks the blocks, skipping their data, never decoding.
 */
function gifSizes(bytes: Uint8Array): [number, number][] | null {
  const width = u16le(bytes, 6)
  const height = u16le(bytes, 8)
  if (width === null || height === null || bytes.length < 13) return null
  const sizes: [number, number][] = [[width, height]]
  const flags = bytes[10]!
  let at = 13 + (flags & 0x80 ? 3 * 2 ** ((flags & 0x07) + 1) : 0)
  const skipSubBlocks = (): boolean => {
    while (at < bytes.length) {
      const size = bytes[at]!
      at += 1 + size
      if (size === 0) return true
    }
    return false
  }
  while (at < bytes.length) {
    const block = bytes[at]!
    if (block === 0x3b) break
    if (block === 0x21) {
      at += 2
      if (!skipSubBlocks()) break
    } else if (block === 0x2c) {
      const left = u16le(bytes, at + 1)
      const top = u16le(bytes, at + 3)
      const frameWidth = u16le(bytes, at + 5)
      const frameHeight = u16le(bytes, at + 7)
      if (left === null || top === null || frameWidth === null || frameHeight === null || at + 9 >= bytes.length) break
      sizes.push([Math.max(width, left + frameWidth), Math.max(height, top + frameHeight)])
      const frameFlags = bytes[at + 9]!
      at += 10 + (frameFlags & 0x80 ? 3 * 2 ** ((frameFlags & 0x07) + 1) : 0)
      // The LZW minimum code size, then the image data.
      at += 1
      if (!skipSubBlocks()) break
    } else break
  }
  return sizes
}

/** The canvas of an extended file (VP8X), or the frame header of a simple lossy (VP8) or lossless (VP8L) one. */
function webpSize(bytes: Uint8Array): [number, number][] | null {
  const chunk = ascii(bytes, 12, 4)
  if (chunk === 'VP8X') {
    const width = u24le(bytes, 24)
    const height = u24le(bytes, 27)
    return width === null || height === null ? null : [[width + 1, height + 1]]
  }
  if (chunk === 'VP8 ') {
    if (!startsWith(bytes, [0x9d, 0x01, 0x2a], 23)) return null
    const width = u16le(bytes, 26)
    const height = u16le(bytes, 28)
    return width === null || height === null ? null : [[width & 0x3fff, height & 0x3fff]]
  }
  if (chunk === 'VP8L') {
    if (bytes[20] !== 0x2f || bytes.length < 25) return null
    const b1 = bytes[21]!
    const b2 = bytes[22]!
    const b3 = bytes[23]!
    const b4 = bytes[24]!
    return [[1 + (b1 | ((b2 & 0x3f) << 8)), 1 + ((b2 >> 6) | (b3 << 2) | ((b4 & 0x0f) << 10))]]
  }
  return null
}

/** Boxes whose children are boxes; `meta` is a full box (4 bytes of version and flags first). */
const CONTAINERS = new Map([
  ['meta', 4],
  ['iprp', 0],
  ['ipco', 0],
])

/**
 * Every `ispe` (image spatial extents) property in `meta/iprp/ipco`: the format requires one for every
 * image item (the primary image, a grid's output, tiles, alpha, thumbnails), so the largest is the size a
 * decoder would allocate. None found: refused.
 */
function avifSizes(bytes: Uint8Array): [number, number][] | null {
  const sizes: [number, number][] = []
  const walk = (start: number, end: number, depth: number): void => {
    let at = start
    while (at + 8 <= end && depth < 4) {
      let size = u32(bytes, at)
      const type = ascii(bytes, at + 4, 4)
      let header = 8
      if (size === null) return
      if (size === 1) {
        const high = u32(bytes, at + 8)
        const low = u32(bytes, at + 12)
        if (high === null || low === null) return
        size = high * 2 ** 32 + low
        header = 16
      } else if (size === 0) size = end - at
      if (size < header) return
      const boxEnd = Math.min(end, at + size)
      const skip = CONTAINERS.get(type)
      if (skip !== undefined) walk(at + header + skip, boxEnd, depth + 1)
      else if (type === 'ispe') {
        const width = u32(bytes, at + header + 4)
        const height = u32(bytes, at + header + 8)
        if (width !== null && height !== null) sizes.push([width, height])
      }
      at += size
    }
  }
  walk(0, bytes.length, 0)
  return sizes.length > 0 ? sizes : null
}
