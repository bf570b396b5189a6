import { resolveEncodingLabel } from './encoding-label.ts'

const PRESCAN_BYTES = 1024
const SPACE = /[\t\n\f\r ]/
const LETTER = /[A-Za-z]/

/**
 * The encoding a page declares in a `<meta charset>` or `<meta http-equiv="content-type">` within
 * its first 1024 bytes, following the HTML prescan (comments and other tags' attributes are
 * skipped, so a `charset=` inside them does not count); null when there is none or it is unknown.
 * @see https://html.spec.whatwg.org/multipage/parsing.html#prescan-a-byte-stream-to-determine-its-encoding
 */
export function prescanCharset(bytes: Uint8Array): string | null {
  // Byte-for-character, so positions match the bytes; only ASCII matters to the prescan.
  const source = String.fromCharCode(...bytes.subarray(0, PRESCAN_BYTES))
  const scanner = { source, position: 0 }
  while (scanner.position < source.length) {
    const rest = source.slice(scanner.position, scanner.position + 6).toLowerCase()
    if (rest.startsWith('<!--')) {
      const end = source.indexOf('-->', scanner.position + 2)
      if (end === -1) return null
      scanner.position = end + 3
    } else if (rest.startsWith('<meta') && (SPACE.test(rest[5] ?? '') || rest[5] === '/')) {
      scanner.position += 5
      const encoding = readMeta(scanner)
      if (encoding !== null) return encoding
    } else if (rest[0] === '<' && (LETTER.test(rest[1] ?? '') || (rest[1] === '/' && LETTER.test(rest[2] ?? '')))) {
      while (
        scanner.position < source.length &&
        !SPACE.test(source[scanner.position]!) &&
        source[scanner.position] !== '>'
      )
        scanner.position++
      while (readAttribute(scanner) !== null) {
        // Attributes are read only to step over quoted values that may hold a ">".
      }
      scanner.position++
    } else if (rest.startsWith('<!') || rest.startsWith('</') || rest.startsWith('<?')) {
      const end = source.indexOf('>', scanner.position)
      if (end === -1) return null
      scanner.position = end + 1
    } else {
      scanner.position++
    }
  }
  return null
}

interface Scanner {
  source: string
  position: number
}

function readMeta(scanner: Scanner): string | null {
  const seen = new Set<string>()
  let gotPragma = false
  let needPragma: boolean | null = null
  let charset: string | null = null
  for (let attribute = readAttribute(scanner); attribute !== null; attribute = readAttribute(scanner)) {
    const [name, value] = attribute
    if (seen.has(name)) continue
    seen.add(name)
    if (name === 'http-equiv' && value === 'content-type') gotPragma = true
    else if (name === 'content' && charset === null) {
      const declared = charsetFromContent(value)
      if (declared !== null) {
        charset = declared
        needPragma = true
      }
    } else if (name === 'charset') {
      charset = value
      needPragma = false
    }
  }
  // A declaration cut off by the 1024-byte limit may be cut mid-label ("iso-8859-1" as "iso-8859").
  if (scanner.position >= scanner.source.length) return null
  if (needPragma === null || (needPragma && !gotPragma) || charset === null) return null
  const encoding = resolveEncodingLabel(charset)
  // A page cannot be UTF-16 if its bytes spelled `<meta` in ASCII; the HTML standard reads it as UTF-8.
  if (encoding === 'utf-16le' || encoding === 'utf-16be') return 'utf-8'
  return encoding === 'x-user-defined' ? 'windows-1252' : encoding
}

/** The HTML "get an attribute" step: name and value lowercased, or null at `>` or the end. */
function readAttribute(scanner: Scanner): [string, string] | null {
  const { source } = scanner
  const at = (): string => source[scanner.position] ?? ''
  while (SPACE.test(at()) || at() === '/') scanner.position++
  if (at() === '>' || at() === '') return null
  let name = ''
  while (at() !== '') {
    const char = at()
    if (char === '=' && name !== '') break
    if (SPACE.test(char)) {
      while (SPACE.test(at())) scanner.position++
      if (at() !== '=') return [name, '']
      break
    }
    if (char === '/' || char === '>') return [name, '']
    name += char.toLowerCase()
    scanner.position++
  }
  if (at() === '') return null
  scanner.position++ // the "="
  while (SPACE.test(at())) scanner.position++
  const quote = at()
  if (quote === '"' || quote === "'") {
    const end = source.indexOf(quote, scanner.position + 1)
    if (end === -1) return null
    const value = source.slice(scanner.position + 1, end).toLowerCase()
    scanner.position = end + 1
    return [name, value]
  }
  if (quote === '>') return [name, '']
  let value = ''
  while (at() !== '' && !SPACE.test(at()) && at() !== '>') {
    value += at().toLowerCase()
    scanner.position++
  }
  return [name, value]
}

/** The charset in a `content="text/html; charset=…"` value. */
function charsetFromContent(content: string): string | null {
  let from = 0
  for (;;) {
    const found = content.indexOf('charset', from)
    if (found === -1) return null
    let position = found + 'charset'.length
    while (SPACE.test(content[position] ?? '')) position++
    if (content[position] !== '=') {
      from = position
      continue
    }
    position++
    while (SPACE.test(content[position] ?? '')) position++
    const quote = content[position]
    if (quote === '"' || quote === "'") {
      const end = content.indexOf(quote, position + 1)
      return end === -1 ? null : content.slice(position + 1, end)
    }
    const match = /^[^\t\n\f\r ;]+/.exec(content.slice(position))
    return match === null ? null : match[0]
  }
}
