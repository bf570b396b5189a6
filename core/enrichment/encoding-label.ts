// Every label the Encoding Standard maps to windows-1252, resolved here rather than by TextDecoder,
// because some runtimes decode windows-1252 as ISO-8859-1 and lose „ € ’ and the like.
const WINDOWS_1252_LABELS: ReadonlySet<string> = new Set([
  'ansi_x3.4-1968',
  'ascii',
  'cp1252',
  'cp819',
  'csisolatin1',
  'ibm819',
  'iso-8859-1',
  'iso-ir-100',
  'iso8859-1',
  'iso88591',
  'iso_8859-1',
  'iso_8859-1:1987',
  'l1',
  'latin1',
  'us-ascii',
  'windows-1252',
  'x-cp1252',
])

/**
 * The Encoding Standard name for a label ("Latin1" → "windows-1252", "utf8" → "utf-8"), or null
 * for a label no decoder here supports (including the "replacement" family such as iso-2022-kr).
 * @see https://encoding.spec.whatwg.org/#names-and-labels
 */
export function resolveEncodingLabel(label: string): string | null {
  const name = label.trim().toLowerCase()
  if (WINDOWS_1252_LABELS.has(name)) return 'windows-1252'
  if (name === 'x-user-defined') return name
  try {
    return new TextDecoder(name).encoding
  } catch {
    return null
  }
}

const WINDOWS_1252_C1 = [
  0x20ac, 0x81, 0x201a, 0x192, 0x201e, 0x2026, 0x2020, 0x2021, 0x2c6, 0x2030, 0x160, 0x2039, 0x152, 0x8d, 0x17d, 0x8f,
  0x90, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x2dc, 0x2122, 0x161, 0x203a, 0x153, 0x9d, 0x17e, 0x178,
]
const CHUNK = 8192

/** Decodes bytes in an encoding {@link resolveEncodingLabel} returned; invalid sequences become U+FFFD. */
export function decodeWith(encoding: string, bytes: Uint8Array): string {
  if (encoding === 'windows-1252')
    return decodeSingleByte(bytes, (byte) => (byte >= 0x80 && byte < 0xa0 ? WINDOWS_1252_C1[byte - 0x80]! : byte))
  if (encoding === 'x-user-defined') return decodeSingleByte(bytes, (byte) => (byte < 0x80 ? byte : 0xf700 + byte))
  return new TextDecoder(encoding).decode(bytes)
}

function decodeSingleByte(bytes: Uint8Array, codeUnit: (byte: number) => number): string {
  let text = ''
  const units = new Uint16Array(Math.min(bytes.length, CHUNK))
  for (let start = 0; start < bytes.length; start += CHUNK) {
    const end = Math.min(start + CHUNK, bytes.length)
    for (let index = start; index < end; index++) units[index - start] = codeUnit(bytes[index]!)
    text += String.fromCharCode(...units.subarray(0, end - start))
  }
  return text
}
