import { describe, expect, test } from 'bun:test'
import { captureBody, MAX_CAPTURE_BODY_BYTES, utf8ByteLength } from '../../extension/src/size-rule.ts'

// docs/extension.md#saving: the page goes with the capture only while the whole JSON body is at most 5 MiB of
// UTF-8, the server's limit for a capture with its page (docs/reading.md#page-capture).

const MiB = 1024 * 1024
const URL = 'https://example.com/post'
/** The body's bytes for a page of `html`, as the server counts them. */
const bytesOf = (html: string) => new TextEncoder().encode(JSON.stringify({ url: URL, html })).byteLength
const overhead = bytesOf('')

describe('utf8ByteLength', () => {
  test('counts as TextEncoder does: 1, 2, 3 and 4 bytes, lone surrogates as U+FFFD', () => {
    for (const text of [
      '',
      'a',
      'é',
      '€',
      '日本語',
      '😀',
      'a😀b',
      '\ud800',
      'x\udc00y',
      '\ud83d\ud83d',
      'mixed é€😀\n"\\',
    ])
      expect(utf8ByteLength(text)).toBe(new TextEncoder().encode(text).byteLength)
  })
})

describe('captureBody', () => {
  test('the limit is the server’s: 5 MiB', () => {
    expect(MAX_CAPTURE_BODY_BYTES).toBe(5 * MiB)
  })

  test('a body of exactly 5 MiB carries the page; one byte more sends the URL alone', () => {
    const fits = 'a'.repeat(5 * MiB - overhead)
    expect(bytesOf(fits)).toBe(5 * MiB)
    const sent = captureBody({ url: URL }, fits)
    expect(sent.withHtml).toBe(true)
    expect(sent.bytes).toBe(5 * MiB)
    expect(JSON.parse(sent.body)).toEqual({ url: URL, html: fits })

    const over = captureBody({ url: URL }, `${fits}a`)
    expect(over.withHtml).toBe(false)
    expect(JSON.parse(over.body)).toEqual({ url: URL })
  })

  test('multi-byte characters count as their UTF-8 bytes, not as characters', () => {
    // 3 bytes each: a third as many characters reach the limit.
    const euros = Math.floor((5 * MiB - overhead) / 3)
    const fits = '€'.repeat(euros)
    expect(bytesOf(fits)).toBeLessThanOrEqual(5 * MiB)
    expect(captureBody({ url: URL }, fits).withHtml).toBe(true)
    // Well under 5 Mi characters, but over 5 MiB of UTF-8.
    const over = '€'.repeat(euros + 1)
    expect(over.length).toBeLessThan(5 * MiB)
    expect(bytesOf(over)).toBeGreaterThan(5 * MiB)
    expect(captureBody({ url: URL }, over).withHtml).toBe(false)

    // 4 bytes for 2 UTF-16 units: the boundary to the byte.
    const pairs = '😀'.repeat(Math.floor((5 * MiB - overhead - 4) / 4))
    const rest = 5 * MiB - bytesOf(pairs)
    expect(rest).toBeGreaterThanOrEqual(4)
    expect(captureBody({ url: URL }, pairs + 'a'.repeat(rest)).withHtml).toBe(true)
    expect(captureBody({ url: URL }, pairs + 'a'.repeat(rest + 1)).withHtml).toBe(false)
    // é is 2 bytes: in place of two a's it fits, of one it is a byte over.
    expect(captureBody({ url: URL }, `${pairs}${'a'.repeat(rest - 2)}é`).withHtml).toBe(true)
    expect(captureBody({ url: URL }, `${pairs}${'a'.repeat(rest - 1)}é`).withHtml).toBe(false)
  })

  test('JSON escapes count: a quote or a control character is sent as two or six bytes', () => {
    const quotes = '"'.repeat(Math.floor((5 * MiB - overhead) / 2))
    expect(bytesOf(quotes)).toBeLessThanOrEqual(5 * MiB)
    expect(captureBody({ url: URL }, quotes).withHtml).toBe(true)
    expect(captureBody({ url: URL }, `${quotes}""`).withHtml).toBe(false)
    const controls = '\u0001'.repeat(Math.floor((5 * MiB - overhead) / 6) + 1)
    expect(captureBody({ url: URL }, controls).withHtml).toBe(false)
  })

  test('the other fields count too; no page at all is the URL alone', () => {
    const fields = { url: URL, tags: ['ai'], folderId: 'f' }
    const base = new TextEncoder().encode(JSON.stringify({ ...fields, html: '' })).byteLength
    expect(captureBody(fields, 'a'.repeat(5 * MiB - base)).withHtml).toBe(true)
    expect(captureBody(fields, 'a'.repeat(5 * MiB - base + 1)).withHtml).toBe(false)
    expect(captureBody(fields, null)).toEqual({
      body: JSON.stringify(fields),
      withHtml: false,
      bytes: utf8ByteLength(JSON.stringify(fields)),
    })
  })

  test('a small page goes whole', () => {
    const html = '<html><body><p>Ünïcødé 😀</p></body></html>'
    const sent = captureBody({ url: URL }, html)
    expect(sent).toEqual({ body: JSON.stringify({ url: URL, html }), withHtml: true, bytes: bytesOf(html) })
  })
})
