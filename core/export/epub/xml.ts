/**
 * Text as XML 1.0 takes it (docs/import-export.md#epub): every EPUB file that is XML (the package, the
 * navigation, each chapter) is parsed by the reading system as XML, where one stray character is a fatal
 * error and the book does not open. So text from a page (a title, an article) is cleaned here before it
 * is written: characters XML cannot hold at all (C0 controls but tab and line feed, lone halves of a
 * surrogate pair, U+FFFE, U+FFFF) and those it discourages (C1 controls, noncharacters) are removed, a
 * carriage return becomes a line feed, and `&`, `<`, `>` (and `"` in attributes) are escaped as numeric
 * character references: XHTML in EPUB has no DTD, so a named entity such as `&nbsp;` would not parse, and
 * epubcheck advises against even XML's own (`&amp;`, HTM-006).
 */

// Controls but tab and line feed, DEL, C1 controls, noncharacters, U+FFFE and U+FFFF, and lone surrogates.
const NOT_XML =
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\ufdd0-\ufdef\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g

/** `text` without the characters XML cannot or should not hold; CR LF and lone CR become LF. */
export function xmlClean(text: string): string {
  return text.replace(/\r\n?/g, '\n').replace(NOT_XML, '')
}

/** `text` cleaned and escaped for XML character data. */
export function xmlText(text: string): string {
  return xmlClean(text).replace(/&/g, '&#38;').replace(/</g, '&#60;').replace(/>/g, '&#62;')
}

/** `text` cleaned and escaped for a double-quoted XML attribute; line breaks and tabs as character references, so they survive attribute normalization. */
export function xmlAttribute(text: string): string {
  return xmlText(text).replace(/"/g, '&#34;').replace(/\n/g, '&#10;').replace(/\t/g, '&#9;')
}

/** One line of text (a title): cleaned, whitespace runs one space, trimmed. */
export function oneLine(text: string): string {
  return xmlClean(text).replace(/\s+/g, ' ').trim()
}

// A language tag as BCP 47 writes it (the article's `lang` is already checked; this keeps a bad one out of
// `xml:lang`, which epubcheck and reading systems read).
const LANGUAGE_TAG = /^[a-z]{2,8}(?:-[a-z0-9]{1,8})*$/i

/** `tag` when it is a well-formed language tag, else null. */
export function languageTag(tag: string | null | undefined): string | null {
  return tag && LANGUAGE_TAG.test(tag) ? tag : null
}

// Languages written right to left, by primary subtag (and a script subtag that says so).
const RTL_LANGUAGES = new Set([
  'ar',
  'arc',
  'ckb',
  'dv',
  'fa',
  'he',
  'iw',
  'ji',
  'ks',
  'nqo',
  'ps',
  'sd',
  'syr',
  'ug',
  'ur',
  'yi',
])
const RTL_SCRIPTS = new Set(['arab', 'hebr', 'syrc', 'thaa', 'nkoo', 'adlm', 'rohg'])
const LTR_SCRIPTS = new Set(['latn', 'cyrl'])

/** Whether text in this language runs right to left: an article's `dir` and a book's page progression. */
export function isRightToLeft(tag: string | null): boolean {
  if (!tag) return false
  const [primary, ...rest] = tag.toLowerCase().split('-')
  const script = rest.find((subtag) => subtag.length === 4 && /^[a-z]{4}$/.test(subtag))
  if (script) {
    if (RTL_SCRIPTS.has(script)) return true
    if (LTR_SCRIPTS.has(script)) return false
  }
  return RTL_LANGUAGES.has(primary!)
}
