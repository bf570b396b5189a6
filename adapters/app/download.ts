/** A file made as it is sent: its name, its type and its bytes (or text) as they come. */
export interface Download {
  filename: string
  /**
   * The name in printable ASCII, for `filename="…"` when `filename` is not (a header holds bytes); the
   * full name then goes in `filename*` (RFC 6266). Absent: `filename` is ASCII already.
   */
  asciiFilename?: string
  contentType: string
  chunks: AsyncGenerator<string | Uint8Array, void, undefined>
}

// RFC 8187's attr-char: what `filename*` may hold without percent-encoding.
const encodeExtended = (value: string) =>
  [...new TextEncoder().encode(value)]
    .map((byte) => {
      const character = String.fromCharCode(byte)
      return /[A-Za-z0-9!#$&+\-.^_`|~]/.test(character)
        ? character
        : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`
    })
    .join('')

/** `Content-Disposition` of an attachment: `filename="…"`, and `filename*` when the name is not ASCII. */
export function attachmentDisposition(download: Pick<Download, 'filename' | 'asciiFilename'>): string {
  if (download.asciiFilename === undefined || download.asciiFilename === download.filename)
    return `attachment; filename="${download.filename}"`
  return `attachment; filename="${download.asciiFilename}"; filename*=UTF-8''${encodeExtended(download.filename)}`
}

/** A download as a response (the API's and the web pages'): an attachment, streamed, never cached. */
export function downloadResponse(download: Download): Response {
  return new Response(byteStream(download.chunks), {
    headers: {
      'content-type': download.contentType,
      'content-disposition': attachmentDisposition(download),
      'cache-control': 'no-store',
    },
  })
}

/** The chunks as a byte stream for a response body; cancelling it (the client went away) stops the reads. */
function byteStream(chunks: AsyncGenerator<string | Uint8Array, void, undefined>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder()
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await chunks.next()
      if (next.done) controller.close()
      else controller.enqueue(typeof next.value === 'string' ? encoder.encode(next.value) : next.value)
    },
    async cancel() {
      await chunks.return(undefined)
    },
  })
}
