import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { cutAtParagraph } from '../../../core/reading/cut-text.ts'

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

describe('cutAtParagraph()', () => {
  const cases: readonly [name: string, text: string, max: number, expected: string, truncated: boolean][] = [
    ['short text is kept whole', 'One.\n\nTwo.', 100, 'One.\n\nTwo.', false],
    ['text of exactly max is kept whole', 'abcdef', 6, 'abcdef', false],
    ['empty text', '', 0, '', false],
    // 'First paragraph.' is 16 characters; the blank line at 16 is past half of 30.
    [
      'cut at the last blank line that fits',
      'First paragraph.\n\nSecond one, long enough to cut.',
      30,
      'First paragraph.',
      true,
    ],
    ['the last of several blank lines', 'aaaa\n\nbbbb\n\ncccc\n\ndddd', 15, 'aaaa\n\nbbbb', true],
    ['a blank line right at max counts (it is not kept)', 'abcdefgh\n\nxyz', 8, 'abcdefgh', true],
    ['no blank line: the last line break', 'line one is here\nline two goes on and on', 25, 'line one is here', true],
    ['no line break: the last space', 'words and more words to cut', 12, 'words and', true],
    ['a space right at max counts', 'abcd efgh', 4, 'abcd', true],
    ['no separator: a hard cut at max', 'abcdefghijklmnop', 10, 'abcdefghij', true],
    ['trailing whitespace before the break is dropped', 'aaaa   \t\n\nbbbbbbbb', 12, 'aaaa', true],
    // The half-window rule: a break before max/2 would throw most of the allowance away.
    [
      'a blank line before half of max loses to a later line break',
      'ab\n\ncdefghijkl\nmnopqrstuvwxyz',
      20,
      'ab\n\ncdefghijkl',
      true,
    ],
    [
      'a blank line before half of max loses to a later space',
      'ab\n\ncdefgh ijklmnop qrstuvwxyz',
      20,
      'ab\n\ncdefgh ijklmnop',
      true,
    ],
    ['a break at exactly half of max is used', 'ab cdefghij', 4, 'ab', true],
    ['a break just before half of max is not: hard cut', 'a bcdefghij', 4, 'a bc', true],
    ['only early breaks: hard cut', 'a\n\nb cdefghijklmnopqrstuvwxyz', 10, 'a\n\nb cdefg', true],
    ['a hard cut never splits a surrogate pair', 'a😀😀😀', 4, 'a😀', true],
    ['a hard cut between pairs keeps the last pair', 'a😀😀😀', 5, 'a😀😀', true],
    ['a hard cut after a lone character before an emoji', '😀😀😀', 1, '', true],
  ]
  for (const [name, text, max, expected, truncated] of cases) {
    test(name, () => {
      assert.deepEqual(cutAtParagraph(text, max), { text: expected, truncated })
    })
  }

  test('on generated text: fits, is a prefix, splits no pair, says whether it cut', () => {
    // A fixed sequence, so every runtime checks the same strings.
    let seed = 42
    const next = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31
      return seed / 2 ** 31
    }
    const pieces = ['word', 'a', ' ', ' ', '\n', '\n\n', '😀', '文', 'é', '-']
    for (let round = 0; round < 2000; round++) {
      let text = ''
      const length = Math.floor(next() * 80)
      for (let i = 0; i < length; i++) text += pieces[Math.floor(next() * pieces.length)]
      const max = Math.floor(next() * 60)
      const cut = cutAtParagraph(text, max)
      assert.ok(cut.text.length <= max || (!cut.truncated && cut.text === text), JSON.stringify({ text, max }))
      assert.ok(text.startsWith(cut.text), JSON.stringify({ text, max }))
      assert.equal(cut.truncated, text.length > max)
      assert.ok(!LONE_SURROGATE.test(cut.text), JSON.stringify({ text, max }))
    }
  })
})
