import { PayloadTooLargeError, UnsupportedMediaTypeError } from '../../core/errors.ts'

export const MAX_BODY_BYTES = 64 * 1024

export const tooLarge = (maxBytes = MAX_BODY_BYTES): PayloadTooLargeError =>
  new PayloadTooLargeError(
    maxBytes === MAX_BODY_BYTES
      ? `Request body is over the ${MAX_BODY_BYTES / 1024} KiB limit`
      : `Request body is over the ${maxBytes / 1024 / 1024} MiB limit of a capture with its page`,
  )

/** Reads a request body, refusing (413) as soon as it passes the cap, whatever Content-Length claimed. */
export async function readBodyCapped(request: Request, maxBytes = MAX_BODY_BYTES): Promise<Uint8Array> {
  const declared = Number(request.headers.get('content-length') ?? '0')
  if (declared > maxBytes) throw tooLarge(maxBytes)
  if (!request.body) return new Uint8Array()
  if (request.headers.has('content-length')) {
    // A declared length frames the body (an HTTP server reads no more than it), so the whole body is at
    // most the cap: read it natively in one go instead of chunk by chunk through a stream reader.
    const body = new Uint8Array(await request.arrayBuffer())
    if (body.byteLength > maxBytes) throw tooLarge(maxBytes)
    return body
  }
  const reader = request.body.getReader()
  const chunks: Uint8Array[] = []
  let total = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    total += value.byteLength
    if (total > maxBytes) {
      await reader.cancel().catch(() => {})
      throw tooLarge(maxBytes)
    }
    chunks.push(value)
  }
  if (chunks.length === 1) return chunks[0]!
  const body = new Uint8Array(total)
  let offset = 0
  for (const chunk of chunks) {
    body.set(chunk, offset)
    offset += chunk.byteLength
  }
  return body
}

export function requireJsonContentType(request: Request): void {
  const type = (request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase()
  if (type === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(type)) return
  throw new UnsupportedMediaTypeError(`Content-Type must be application/json, got ${type ? `"${type}"` : 'none'}`)
}

/** Reads an HTML form post (urlencoded, at most 64 KiB). Anything else parses to no fields. */
export async function readForm(request: Request): Promise<URLSearchParams> {
  const body = await readBodyCapped(request)
  const type = (request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase()
  if (type !== 'application/x-www-form-urlencoded') return new URLSearchParams()
  return new URLSearchParams(new TextDecoder().decode(body))
}
