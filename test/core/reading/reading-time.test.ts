import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { countWords, readingMinutes, WORDS_PER_MINUTE } from '../../../core/reading/reading-time.ts'

describe('countWords()', () => {
  const cases: readonly [name: string, text: string, words: number][] = [
    ['plain English', 'The quick brown fox jumps over the lazy dog.', 9],
    ['an apostrophe joins a word', "don't stop, it's fine", 4],
    ['a typographic apostrophe joins a word', 'it’s the reader’s choice', 4],
    ['a hyphen joins a word', 'a read-later service, state-of-the-art', 4],
    ['quotes and dashes alone are not words', "'quoted' -dash- — … ! ?", 2],
    ['an apostrophe or hyphen at the edge is not part of the word', "rock 'n' roll-", 3],
    ['numbers are words', 'In 2025, 42 people read 7 articles', 7],
    ['a decimal point or thousands comma splits a number', '3.14 and 1,204', 5],
    ['letters with marks', 'naïve café, e\u0301te\u0301', 3],
    ['other spaced scripts', 'Привет мир, γειά σου, 한국어 텍스트', 6],
    ['Han: one word per character', '日本語', 3],
    ['Hiragana and Katakana: one word per character', 'のテキスト', 5],
    ['a prolonged sound mark counts as a character too', 'コーヒー', 4],
    ['Chinese sentence with punctuation', '我们读文章。', 5],
    ['mixed English and Japanese', 'Readlater は便利です', 6],
    ['mixed with no spaces between scripts', 'HTMLパーサー', 5],
    ['emoji are not words', 'great 😀 read 👍', 2],
    ['an underscore separates', 'snake_case', 2],
    ['empty string', '', 0],
    ['only whitespace', ' \n\t\u00a0 ', 0],
  ]
  for (const [name, text, words] of cases) {
    test(`${name}: ${JSON.stringify(text)} → ${words}`, () => {
      assert.equal(countWords(text), words)
    })
  }

  test('counts a long text in one pass', () => {
    assert.equal(countWords('word '.repeat(100_000)), 100_000)
    assert.equal(countWords('字'.repeat(100_000)), 100_000)
  })
})

describe('readingMinutes()', () => {
  const cases: readonly [words: number, minutes: number][] = [
    [0, 1],
    [1, 1],
    [229, 1],
    [230, 1],
    [231, 2],
    [460, 2],
    [461, 3],
    [23_000, 100],
  ]
  for (const [words, minutes] of cases) {
    test(`${words} words → ${minutes} min`, () => {
      assert.equal(readingMinutes(words), minutes)
    })
  }

  test('assumes 230 words a minute', () => {
    assert.equal(WORDS_PER_MINUTE, 230)
  })
})
