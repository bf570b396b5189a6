import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { prescanCharset } from '../../../core/enrichment/charset-prescan.ts'
import { decodeHtml } from '../../../core/enrichment/decode-html.ts'
import { decodeWith, resolveEncodingLabel } from '../../../core/enrichment/encoding-label.ts'
import { readPage } from '../../fixtures/pages/read-page.ts'

const ascii = (text: string): Uint8Array => new TextEncoder().encode(text)
const concat = (...parts: (Uint8Array | number[])[]): Uint8Array => {
  const out: number[] = []
  for (const part of parts) out.push(...part)
  return new Uint8Array(out)
}
// "é" and "„" in windows-1252, and "é" in UTF-8.
const LATIN1_E = [0xe9]
const LATIN1_QUOTE = [0x84]
const UTF8_E = [0xc3, 0xa9]

describe('decodeHtml()', () => {
  test('decodeHtml() uses the charset of the Content-Type header', () => {
    assert.equal(decodeHtml(concat(ascii('<p>caf'), LATIN1_E), 'text/html; charset=ISO-8859-1'), '<p>café')
    assert.equal(decodeHtml(concat(ascii('<p>caf'), LATIN1_E), 'text/html;charset="windows-1252"'), '<p>café')
    assert.equal(decodeHtml(concat(ascii('<p>caf'), UTF8_E), 'text/html; charset=utf-8'), '<p>café')
  })

  test('decodeHtml() decodes windows-1252 punctuation for Latin-1 labels, as the Encoding Standard maps them', () => {
    assert.equal(
      decodeHtml(concat(LATIN1_QUOTE, ascii('x'), [0x93, 0x80, 0x99, 0x81]), 'text/html; charset=latin1'),
      '„x“€™\u0081',
    )
  })

  test('decodeHtml() lets a byte order mark override the header, and strips it', () => {
    assert.equal(decodeHtml(concat([0xef, 0xbb, 0xbf], ascii('caf'), UTF8_E), 'text/html; charset=iso-8859-1'), 'café')
    assert.equal(decodeHtml(new Uint8Array([0xff, 0xfe, 0x68, 0x00, 0xe9, 0x00]), null), 'hé')
    assert.equal(decodeHtml(new Uint8Array([0xfe, 0xff, 0x00, 0x68, 0x00, 0xe9]), 'text/html'), 'hé')
  })

  test('decodeHtml() reads <meta charset> when the header has none', () => {
    assert.equal(
      decodeHtml(concat(ascii('<html><head><meta charset="iso-8859-1"><title>caf'), LATIN1_E), 'text/html'),
      '<html><head><meta charset="iso-8859-1"><title>café',
    )
  })

  test('decodeHtml() reads <meta http-equiv=content-type>', () => {
    const head = '<meta http-equiv="Content-Type" content="text/html; charset=windows-1252">'
    assert.equal(decodeHtml(concat(ascii(head), LATIN1_E), null), `${head}é`)
  })

  test('decodeHtml() skips an unknown header label and sniffs the page instead', () => {
    assert.equal(
      decodeHtml(concat(ascii('<meta charset=latin1>'), LATIN1_E), 'text/html; charset=no-such-charset'),
      '<meta charset=latin1>é',
    )
  })

  test('decodeHtml() falls back to UTF-8, replacing invalid bytes', () => {
    assert.equal(decodeHtml(concat(ascii('caf'), UTF8_E), null), 'café')
    assert.equal(decodeHtml(concat(ascii('caf'), LATIN1_E), 'text/html'), 'caf\ufffd')
    assert.equal(
      decodeHtml(concat(ascii('<meta charset="bogus">caf'), UTF8_E), 'text/html; charset=bogus'),
      '<meta charset="bogus">café',
    )
  })

  test('decodeHtml() decodes other encodings the page declares', () => {
    const shiftJis = new Uint8Array([0x93, 0xfa, 0x96, 0x7b]) // 日本
    assert.equal(decodeHtml(shiftJis, 'text/html; charset=Shift_JIS'), '日本')
    assert.equal(decodeHtml(concat(ascii('<meta charset=koi8-r>'), [0xc1]), null), '<meta charset=koi8-r>а')
  })

  test('decodeHtml() decodes the latin1 sample page', () => {
    const html = decodeHtml(readPage('latin1'), 'text/html')
    assert.ok(html.includes('<title>Über uns – Café „Zur Mühle“</title>'))
    assert.ok(html.includes('gibt’s dort „Kaffee & Kuchen“ für 4,50 €.'))
  })
})

describe('prescanCharset()', () => {
  const scan = (html: string) => prescanCharset(ascii(html))

  test('prescanCharset() finds charset and http-equiv declarations', () => {
    assert.equal(scan('<!doctype html><html><head><meta charset=ISO-8859-2>'), 'iso-8859-2')
    assert.equal(scan("<META CONTENT='text/html; charset=\"koi8-r\"' HTTP-EQUIV='content-type'>"), 'koi8-r')
    assert.equal(scan('<meta/charset="utf-8"/>'), 'utf-8')
  })

  test('prescanCharset() needs the http-equiv pragma for a content charset', () => {
    assert.equal(scan('<meta content="text/html; charset=koi8-r">'), null)
    assert.equal(scan('<meta name="x" content="text/html; charset=koi8-r" http-equiv="refresh">'), null)
  })

  test("prescanCharset() ignores comments and other tags' attributes", () => {
    assert.equal(scan('<!-- <meta charset="koi8-r"> --><meta charset="iso-8859-2">'), 'iso-8859-2')
    assert.equal(scan('<div title="<meta charset=koi8-r>"><meta charset="iso-8859-2">'), 'iso-8859-2')
    assert.equal(scan('<!--> <meta charset="koi8-r">'), 'koi8-r')
  })

  test('prescanCharset() skips an unknown label for a later declaration', () => {
    assert.equal(scan('<meta charset="nope"><meta charset="koi8-r">'), 'koi8-r')
  })

  test('prescanCharset() reads UTF-16 declarations as UTF-8 and x-user-defined as windows-1252', () => {
    assert.equal(scan('<meta charset="utf-16le">'), 'utf-8')
    assert.equal(scan('<meta charset="x-user-defined">'), 'windows-1252')
  })

  test('prescanCharset() looks only at the first 1024 bytes', () => {
    // 1001 + 23 characters end exactly at the limit; one more space cuts off the ">".
    assert.equal(scan(`${' '.repeat(1001)}<meta charset="koi8-r">`), 'koi8-r')
    assert.equal(scan(`${' '.repeat(1002)}<meta charset="koi8-r">`), null)
    assert.equal(scan(`${' '.repeat(1003)}<meta charset=iso-8859-15>`), null)
  })
})

describe('resolveEncodingLabel() and decodeWith()', () => {
  test('resolveEncodingLabel() maps labels to Encoding Standard names', () => {
    assert.equal(resolveEncodingLabel(' US-ASCII '), 'windows-1252')
    assert.equal(resolveEncodingLabel('utf8'), 'utf-8')
    assert.equal(resolveEncodingLabel('iso-2022-kr'), null)
    assert.equal(resolveEncodingLabel('x-user-defined'), 'x-user-defined')
  })

  test('decodeWith() maps x-user-defined high bytes into the private use area', () => {
    assert.equal(decodeWith('x-user-defined', new Uint8Array([0x41, 0x80, 0xff])), 'A\uf780\uf7ff')
  })

  test('decodeWith() decodes more than one chunk of windows-1252', () => {
    const bytes = new Uint8Array(20_000).fill(0xe9)
    assert.equal(decodeWith('windows-1252', bytes), 'é'.repeat(20_000))
  })
})
