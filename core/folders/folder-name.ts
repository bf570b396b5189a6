import { InvalidFolderNameError } from '../errors.ts'
import { hasVisibleCharacter } from '../text/display-text.ts'

/** Longest folder name, in Unicode code points after trimming. @see docs/api.md#limits */
export const MAX_FOLDER_NAME_LENGTH = 100

/**
 * Control characters (Cc: tab, newline, NUL, DEL, C1), the line and paragraph separators, and
 * unpaired surrogates, which cannot be stored as UTF-8. Format characters (Cf) stay allowed:
 * zero-width joiners build emoji such as 👨‍👩‍👧 and ZWNJ is part of Persian spelling, and a name
 * is only ever shown to its owner, so bidi controls cannot spoof anyone else. A name of nothing but
 * format characters, fillers and blanks is refused all the same (core/text/display-text.ts).
 */
const FORBIDDEN_CHARACTER = /[\p{Cc}\p{Cs}\u2028\u2029]/u

/**
 * Trims (all Unicode whitespace) and NFC-normalizes a folder name, checks it is 1–100 code points
 * without control characters and with at least one visible character, and derives the lowercase key used for case-insensitive uniqueness
 * and ordering. Throws {@link InvalidFolderNameError}.
 * @see docs/api.md#limits and docs/api.md#folders
 */
export function normalizeFolderName(raw: string): { name: string; key: string } {
  // NFC so that "é" typed as one code point or as "e" + U+0301 is the same name.
  const name = raw.trim().normalize('NFC')
  if (name === '') {
    throw new InvalidFolderNameError('Cannot use folder name: it is empty or only whitespace')
  }
  const forbidden = FORBIDDEN_CHARACTER.exec(name)
  if (forbidden !== null) {
    const codePoint = forbidden[0].codePointAt(0) ?? 0
    const hex = codePoint.toString(16).toUpperCase().padStart(4, '0')
    throw new InvalidFolderNameError(`Cannot use folder name: it contains the control character U+${hex}`)
  }
  // Code points, not UTF-16 units, so an emoji counts as one character as a person would expect.
  const length = [...name].length
  if (length > MAX_FOLDER_NAME_LENGTH) {
    throw new InvalidFolderNameError(
      `Cannot use folder name: it is ${length} characters long, the limit is ${MAX_FOLDER_NAME_LENGTH}`,
    )
  }
  // Only Hangul fillers, blanks or format characters: a folder that shows as nothing in every list.
  if (!hasVisibleCharacter(name))
    throw new InvalidFolderNameError('Cannot use folder name: it has no visible character')
  return { name, key: name.toLowerCase() }
}
