/** Words a minute the reading time assumes. @see docs/reading.md#content */
export const WORDS_PER_MINUTE = 230

// Scripts written without spaces between words: each character counts as one word.
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/gu
// Otherwise a word is a run of letters, marks and digits, possibly joined by an apostrophe or hyphen.
const WORD = /[\p{L}\p{M}\p{N}]+(?:['’-][\p{L}\p{M}\p{N}]+)*/gu

/**
 * Words in `text`. Regular expressions rather than Intl.Segmenter, so the count is the same on every
 * runtime and ICU version. @see docs/reading.md#content
 */
export function countWords(text: string): number {
  let count = 0
  const spaced = text.replace(UNSPACED, () => {
    count++
    return ' '
  })
  for (const _ of spaced.matchAll(WORD)) count++
  return count
}

/** `ceil(words / 230)`, and at least 1. */
export function readingMinutes(wordCount: number): number {
  return Math.max(1, Math.ceil(wordCount / WORDS_PER_MINUTE))
}
