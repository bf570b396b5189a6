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
 * Why a short name shown to a person (a key label, a device hint) cannot be used, as the end of a
 * sentence ("must be at most 100 characters"), or null. Lengths count code points, as a person would;
 * `text` is taken as already trimmed.
 */
export function displayTextProblem(text: string, maxLength: number): string | null {
  const disguising = disguisingCharacter(text)
  if (disguising) return `must not contain control, invisible or bidirectional characters (found ${disguising})`
  if ([...text].length > maxLength) return `must be at most ${maxLength} characters`
  return null
}
