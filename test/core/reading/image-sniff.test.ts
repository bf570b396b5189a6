import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { IMAGE_MAX_PIXELS, mayBeImage, sniffImage } from '../../../core/reading/image-sniff.ts'
import {
  avifHead,
  concat,
  gif,
  HTML_PAGE,
  jpegHead,
  png,
  SVG_WITH_SCRIPT,
  WEBP_LOSSLESS,
  WEBP_LOSSY,
  webpExtended,
} from '../../fixtures/images/images.ts'

// docs/enrichment.md#images: an archived image's type comes from its bytes, and its declared size is checked
// from the header, never by decoding.

describe('sniffImage()', () => {
  test('reads the type and size of each of the five formats from their headers', () => {
    assert.deepEqual(sniffImage(png(3, 2)), { mediaType: 'image/png', width: 3, height: 2 })
    assert.deepEqual(sniffImage(jpegHead(640, 480)), { mediaType: 'image/jpeg', width: 640, height: 480 })
    assert.deepEqual(sniffImage(gif(4, 5)), { mediaType: 'image/gif', width: 4, height: 5 })
    assert.deepEqual(sniffImage(WEBP_LOSSLESS), { mediaType: 'image/webp', width: 1, height: 1 })
    assert.deepEqual(sniffImage(WEBP_LOSSY), { mediaType: 'image/webp', width: 1, height: 1 })
    assert.deepEqual(sniffImage(webpExtended(800, 600)), { mediaType: 'image/webp', width: 800, height: 600 })
    assert.deepEqual(sniffImage(avifHead([1200, 800])), { mediaType: 'image/avif', width: 1200, height: 800 })
  })

  test('an HTML page, an SVG (with or without script), text and nothing are not images, whatever they are served as', () => {
    for (const bytes of [HTML_PAGE, SVG_WITH_SCRIPT, new TextEncoder().encode('GIF'), new Uint8Array(0)])
      assert.equal(sniffImage(bytes), 'not an image')
    // BMP and HEIC are images, but not among the five an article keeps.
    assert.equal(sniffImage(concat([0x42, 0x4d], new Uint8Array(60))), 'not an image')
    const heic = avifHead([10, 10])
    heic.set(
      [...'heic'].map((c) => c.charCodeAt(0)),
      8,
    )
    heic.set(
      [...'heic'].map((c) => c.charCodeAt(0)),
      16,
    )
    assert.equal(sniffImage(heic), 'not an image')
  })

  test('a decompression bomb (a tiny file declaring a huge size) is refused from its header', () => {
    const bomb = png(1, 1, { declared: [100_000, 100_000] })
    assert.ok(bomb.length < 100)
    assert.equal(sniffImage(bomb), 'too many pixels')
    assert.equal(sniffImage(jpegHead(65_535, 65_535)), 'too many pixels')
    assert.equal(sniffImage(webpExtended(16_384, 16_384)), 'too many pixels')
    // AVIF: the largest item counts (a grid's output, a tile, a thumbnail).
    assert.equal(sniffImage(avifHead([64, 64], [20_000, 20_000])), 'too many pixels')
    // GIF: a frame placed far outside its small screen makes a decoder's canvas that large.
    assert.equal(sniffImage(gif(1, 1, { left: 60_000, top: 60_000 })), 'too many pixels')
  })

  test('the limit is 50 megapixels: exactly that many is kept, one row more is not', () => {
    assert.equal(IMAGE_MAX_PIXELS, 50_000_000)
    assert.deepEqual(sniffImage(png(1, 1, { declared: [10_000, 5_000] })), {
      mediaType: 'image/png',
      width: 10_000,
      height: 5_000,
    })
    assert.equal(sniffImage(png(1, 1, { declared: [10_000, 5_001] })), 'too many pixels')
  })

  test('a header without readable dimensions, or with a zero one, is refused', () => {
    assert.equal(sniffImage(png(1, 1).subarray(0, 20)), 'no dimensions')
    assert.equal(sniffImage(png(1, 1, { declared: [0, 10] })), 'no dimensions')
    assert.equal(sniffImage(jpegHead(100, 0)), 'no dimensions')
    // A JPEG whose first scan comes before any frame header.
    assert.equal(sniffImage(new Uint8Array([0xff, 0xd8, 0xff, 0xda, 0, 2, 0xff, 0xd9])), 'no dimensions')
    assert.equal(sniffImage(avifHead()), 'no dimensions')
  })

  test('mayBeImage() stops a read at the first bytes that cannot open an image, and waits for enough of them', () => {
    assert.equal(mayBeImage(HTML_PAGE), false)
    assert.equal(mayBeImage(SVG_WITH_SCRIPT), false)
    assert.equal(mayBeImage(png(1, 1)), true)
    assert.equal(mayBeImage(new TextEncoder().encode('<svg')), true)
  })
})
