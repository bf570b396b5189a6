/**
 * Characters that can make a name shown to a person say something else than it looks like: controls
 * (`Cc`), line separators, lone surrogates (`Cs`) and invisible formatting (`Cf`: zero-width spaces and
 * joiners, bidirectional overrides and isolates, the byte-order mark, soft hyphens). A right-to-left
 * override turns "Readlater‮gnp.exe" into "Readlaterexe.png" on a consent page.
 * The price: emoji joined with U+200D (👩‍💻) are refused in these few fields.
 * @see docs/api.md#hostile-input
 */
const DISGUISING_CHARACTER = /[\p{Cc}\p{Cs}\p{Cf}\u2028\u2029]/u

/**
 * The first character of `text` that could disguise a displayed name (client names, connect labels,
 * device hints), as `U+XXXX`, or null when there is none.
 */
export function disguisingCharacter(text: string): string | null {
  const found = DISGUISING_CHARACTER.exec(text)
  if (found === null) return null
  return `U+${(found[0].codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`
}

/**
 * A character that shows something: not whitespace, not a control or format character, not a
 * default-ignorable code point (the Hangul fillers U+115F, U+1160, U+3164 and U+FFA0, the combining
 * grapheme joiner U+034F, variation selectors, tags) and not the braille blank U+2800, which all render
 * as nothing. "Allow ㅤ to use your account?" on a consent page names no one.
 * @see docs/api.md#hostile-input
 */
const VISIBLE_CHARACTER = /[^\p{White_Space}\p{Default_Ignorable_Code_Point}\p{Cc}\p{Cf}\p{Cs}\u2800]/u

/**
 * Whether `text` has at least one visible character: the rule every name shown to a person shares
 * (folder names, connect labels, device hints, API key labels, OAuth client names).
 * @see docs/api.md#hostile-input
 */
export function hasVisibleCharacter(text: string): boolean {
  return VISIBLE_CHARACTER.test(text)
}

/**
 * Why a short name shown to a person (a key label, a device hint) cannot be used, as the end of a
 * sentence ("must be at most 100 characters"), or null. Lengths count code points, as a person would;
 * `text` is taken as already trimmed.
 */
export function displayTextProblem(text: string, maxLength: number): string | null {
  const disguising = disguisingCharacter(text)
  if (disguising) return `must not contain control, invisible or bidirectional characters (found ${disguising})`
  if ([...text].length > maxLength) return `must be at most ${maxLength} characters`
  if (!hasVisibleCharacter(text)) return 'must contain at least one visible character'
  return null
}
