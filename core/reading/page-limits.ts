/** The most of a page enrichment reads, fetched or sent with a capture (bytes of UTF-8). @see docs/reading.md */
export const PAGE_MAX_BYTES = 2 * 1024 * 1024
/** A request body that carries a page (`html`) may be this large; without one the usual 64 KiB cap stands. */
export const PAGE_BODY_MAX_BYTES = 5 * 1024 * 1024

const encoder = new TextEncoder()
const decoder = new TextDecoder()

/**
 * A page sent with a capture, cut to {@link PAGE_MAX_BYTES} as a fetch would be (on a character boundary:
 * a character the cut splits is dropped). @see docs/reading.md#page-capture
 */
export function capPage(html: string): string {
  // Three bytes per UTF-16 unit at most: a string this short is under the cap without encoding it.
  if (html.length * 3 <= PAGE_MAX_BYTES) return html
  const bytes = encoder.encode(html)
  if (bytes.byteLength <= PAGE_MAX_BYTES) return html
  let end = PAGE_MAX_BYTES
  // Back up to the start of the character the cut falls in (continuation bytes are 10xxxxxx).
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--
  return decoder.decode(bytes.subarray(0, end))
}
