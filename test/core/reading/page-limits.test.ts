import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { capPage, PAGE_BODY_MAX_BYTES, PAGE_MAX_BYTES } from '../../../core/reading/page-limits.ts'

const encoder = new TextEncoder()
const bytes = (text: string) => encoder.encode(text).byteLength
const MAX = PAGE_MAX_BYTES

describe('capPage()', () => {
  test('the caps are 2 MiB for a page and 5 MiB for a request that carries one', () => {
    assert.equal(PAGE_MAX_BYTES, 2 * 1024 * 1024)
    assert.equal(PAGE_BODY_MAX_BYTES, 5 * 1024 * 1024)
  })

  test('keeps short strings identical', () => {
    for (const page of ['', '<p>héllo wörld 😀</p>', '文'.repeat(1000)]) assert.equal(capPage(page), page)
  })

  test('keeps a string of exactly the cap, and one whose characters could be 3 bytes but are not', () => {
    const exact = 'a'.repeat(MAX)
    assert.equal(capPage(exact), exact)
    const ascii = 'a'.repeat(Math.floor(MAX / 3) + 1)
    assert.equal(capPage(ascii), ascii)
    const multi = `${'a'.repeat(MAX - 4)}😀`
    assert.equal(bytes(multi), MAX)
    assert.equal(capPage(multi), multi)
  })

  test('cuts long ASCII to exactly the cap', () => {
    const page = 'a'.repeat(MAX + 10)
    const capped = capPage(page)
    assert.equal(capped.length, MAX)
    assert.equal(bytes(capped), MAX)
  })

  // A prefix of ASCII, then a character that starts `before` bytes before the cap.
  const crossing: readonly [name: string, character: string, before: number, kept: number][] = [
    ['a 4-byte emoji that crosses the cap by 3 bytes', '😀', 1, MAX - 1],
    ['a 4-byte emoji that crosses the cap by 2 bytes', '😀', 2, MAX - 2],
    ['a 4-byte emoji that crosses the cap by 1 byte', '😀', 3, MAX - 3],
    ['a 4-byte emoji that ends at the cap', '😀', 4, MAX],
    ['a 3-byte CJK character that crosses the cap by 2 bytes', '文', 1, MAX - 1],
    ['a 3-byte CJK character that crosses the cap by 1 byte', '文', 2, MAX - 2],
    ['a 3-byte CJK character that ends at the cap', '文', 3, MAX],
    ['a 2-byte character that crosses the cap by 1 byte', 'é', 1, MAX - 1],
  ]
  for (const [name, character, before, kept] of crossing) {
    test(`never splits a character: ${name}`, () => {
      const page = `${'a'.repeat(MAX - before)}${character}${character}tail`
      const capped = capPage(page)
      assert.equal(bytes(capped), kept)
      assert.ok(page.startsWith(capped))
      assert.ok(!capped.includes('\ufffd'))
    })
  }

  test('never splits a character in text of emoji and CJK only', () => {
    const emoji = capPage(`a${'😀'.repeat(MAX / 4)}`)
    assert.equal(bytes(emoji), MAX - 3)
    assert.ok(emoji.endsWith('😀'))
    const cjk = capPage('文'.repeat(MAX / 2))
    assert.equal(bytes(cjk), MAX - (MAX % 3))
    assert.equal(cjk, '文'.repeat(Math.floor(MAX / 3)))
    const mixed = capPage('文😀'.repeat(MAX / 5))
    assert.ok(bytes(mixed) <= MAX && bytes(mixed) > MAX - 4)
    assert.ok(!mixed.includes('\ufffd'))
    assert.ok(/^(?:文😀)*文?$/u.test(mixed))
  })
})
