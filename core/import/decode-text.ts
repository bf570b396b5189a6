import { isZip } from './zip.ts'

/**
 * The text of a file: a byte-order mark decides the encoding (and is removed); without one, the charset
 * of the upload's `Content-Type` when the runtime knows it; otherwise UTF-8, falling back to
 * Windows-1252 when the bytes are not valid UTF-8 (old Windows browsers wrote bookmark files that way).
 * @see docs/import-export.md#detection
 */
export function decodeText(bytes: Uint8Array, contentType?: string | null): string {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return decode('utf-8', bytes.subarray(3))
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return decode('utf-16le', bytes.subarray(2))
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return decode('utf-16be', bytes.subarray(2))
  const charset = charsetOf(contentType)
  if (charset !== undefined && !/^utf-?8$/i.test(charset)) {
    const decoder = decoderFor(charset)
    if (decoder !== null) return stripBom(decoder.decode(bytes))
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    const legacy = decoderFor('windows-1252')
    return legacy === null ? decode('utf-8', bytes) : legacy.decode(bytes)
  }
}

/**
 * Whether the upload's `Content-Type` names a UTF-16 charset the runtime knows (`utf-16`, `utf-16le`,
 * `utf-16be` and their aliases): text whose NULs are half its characters, not binary data.
 * @see docs/import-export.md#detection
 */
export function namesUtf16Charset(contentType?: string | null): boolean {
  const charset = charsetOf(contentType)
  return charset !== undefined && (decoderFor(charset)?.encoding.startsWith('utf-16') ?? false)
}

/** The `charset` parameter of a Content-Type, as written; undefined when there is none. */
function charsetOf(contentType: string | null | undefined): string | undefined {
  return contentType ? /;\s*charset\s*=\s*"?([\w.:-]+)"?/i.exec(contentType)?.[1] : undefined
}

function decode(encoding: string, bytes: Uint8Array): string {
  return new TextDecoder(encoding).decode(bytes)
}

function decoderFor(label: string): TextDecoder | null {
  try {
    return new TextDecoder(label)
  } catch {
    // A label the runtime does not know: ignored, since the Content-Type is only a hint.
    return null
  }
}

function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
}

/**
 * The bytes to keep of an upload, for a job that reads it again without its Content-Type: as uploaded
 * (a zip always), unless that Content-Type's charset decided how the text was read (no byte-order mark, a charset other
 * than UTF-8 that the runtime knows); then the text as read, in UTF-8 behind a byte-order mark, so every
 * later reading sees the same text. @see docs/import-export.md#jobs
 */
export function bytesToKeep(bytes: Uint8Array, contentType?: string | null): Uint8Array {
  if (!contentType || hasBom(bytes) || isZip(bytes)) return bytes
  const charset = charsetOf(contentType)
  if (charset === undefined || /^utf-?8$/i.test(charset) || decoderFor(charset) === null) return bytes
  const utf8 = new TextEncoder().encode(decodeText(bytes, contentType))
  const kept = new Uint8Array(utf8.length + 3)
  kept.set([0xef, 0xbb, 0xbf])
  kept.set(utf8, 3)
  return kept
}

function hasBom(bytes: Uint8Array): boolean {
  return (
    (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) ||
    (bytes[0] === 0xff && bytes[1] === 0xfe) ||
    (bytes[0] === 0xfe && bytes[1] === 0xff)
  )
}
