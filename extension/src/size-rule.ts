// The HTML size rule (docs/extension.md#saving): a capture carries the rendered page (`html`) only while its
// whole JSON body stays within the server's limit for a capture with its page, counted in UTF-8 bytes as
// the server counts them (docs/reading.md#page-capture); past it, the URL alone is sent.
import { PAGE_BODY_MAX_BYTES } from '../../core/reading/page-limits.ts'

/** The largest JSON body, in UTF-8 bytes, of a capture that carries `html` (5 MiB). */
export const MAX_CAPTURE_BODY_BYTES = PAGE_BODY_MAX_BYTES

/**
 * The UTF-8 length of a string without encoding it: 1 byte up to U+007F, 2 up to U+07FF, 4 for a surrogate
 * pair, 3 otherwise (a lone surrogate too: it is sent as U+FFFD, 3 bytes).
 */
export function utf8ByteLength(text: string): number {
  let bytes = 0
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i)
    if (unit < 0x80) bytes += 1
    else if (unit < 0x800) bytes += 2
    else if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1)
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4
        i++
      } else bytes += 3
    } else bytes += 3
  }
  return bytes
}

export interface CaptureFields {
  url: string
  tags?: string[]
  folderId?: string
}

export interface CaptureBody {
  /** The JSON body to send, exactly as it will be sent again on a retry. */
  body: string
  /** Whether `html` is in it. */
  withHtml: boolean
  /** Its length in UTF-8 bytes. */
  bytes: number
}

/** The capture's body: with `html` when the whole body fits in `maxBytes`, else the URL (and fields) alone. */
export function captureBody(
  fields: CaptureFields,
  html: string | null,
  maxBytes: number = MAX_CAPTURE_BODY_BYTES,
): CaptureBody {
  if (html !== null) {
    // Every UTF-16 unit is at least one byte of UTF-8: a page of more units than the limit has bytes
    // cannot fit, so it is not stringified at all.
    if (html.length <= maxBytes) {
      const body = JSON.stringify({ ...fields, html })
      const bytes = utf8ByteLength(body)
      if (bytes <= maxBytes) return { body, withHtml: true, bytes }
    }
  }
  const body = JSON.stringify(fields)
  return { body, withHtml: false, bytes: utf8ByteLength(body) }
}
