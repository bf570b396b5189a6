import { prescanCharset } from './charset-prescan.ts'
import { decodeWith, resolveEncodingLabel } from './encoding-label.ts'

const CHARSET_PARAMETER = /;\s*charset\s*=\s*(?:"([^"]*)"|([^;\s]*))/i

/**
 * Decodes a fetched HTML document as the HTML standard sniffs its encoding: a byte order mark
 * first (browsers let it override the header), then the `charset` of the Content-Type header, then
 * a `<meta charset>` / `<meta http-equiv=content-type>` prescan of the first 1024 bytes, else
 * UTF-8. A label no decoder knows is skipped like a missing one; Latin-1 labels mean windows-1252,
 * as the Encoding Standard maps them. Invalid bytes become U+FFFD; never throws.
 * @see https://html.spec.whatwg.org/multipage/parsing.html#encoding-sniffing-algorithm
 */
export function decodeHtml(bytes: Uint8Array, contentType: string | null): string {
  const encoding = byteOrderMark(bytes) ?? headerCharset(contentType) ?? prescanCharset(bytes) ?? 'utf-8'
  return decodeWith(encoding, bytes)
}

function byteOrderMark(bytes: Uint8Array): string | null {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return 'utf-8'
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be'
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le'
  return null
}

function headerCharset(contentType: string | null): string | null {
  const match = contentType === null ? null : CHARSET_PARAMETER.exec(contentType)
  const label = match?.[1] ?? match?.[2]
  return label === undefined ? null : resolveEncodingLabel(label)
}
