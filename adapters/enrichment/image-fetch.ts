import { mayBeImage, SIGNATURE_BYTES, sniffImage, type ArchivedImageType } from '../../core/reading/image-sniff.ts'
import { FetchFailedError, FetchRefusedError, guardedFetchBytes, type GuardedFetchOptions } from './guarded-fetch.ts'

/** What fetching one of an article's images came to (docs/enrichment.md#images). */
export type FetchedImage =
  | { ok: true; mediaType: ArchivedImageType; bytes: Uint8Array; width: number; height: number }
  | { ok: false; reason: string }

// The five raster types first; anything else is still read (the bytes decide, not the header), but last.
const IMAGE_ACCEPT = 'image/avif,image/webp,image/png,image/jpeg,image/gif;q=0.9,*/*;q=0.1'

/**
 * One image through the address guard, with every rule of a page fetch (public addresses only, pinned,
 * each redirect checked again, no cookie, 10 s), read up to `maxBytes` whatever its Content-Type says, then
 * judged by its bytes alone: one of PNG, JPEG, GIF, WebP or AVIF by signature, with readable dimensions of
 * at most 50 megapixels (core/reading/image-sniff.ts). The read stops at the first bytes that cannot open an
 * image (an HTML page, an SVG). Never throws: a failure is a reason, for the log.
 */
export async function fetchImage(
  url: string,
  guard: GuardedFetchOptions,
  options: { maxBytes: number; signal: AbortSignal },
): Promise<FetchedImage> {
  try {
    const fetched = await guardedFetchBytes(url, {
      ...guard,
      accept: IMAGE_ACCEPT,
      maxBytes: options.maxBytes,
      signal: options.signal,
      head: mayBeImage,
      headBytes: SIGNATURE_BYTES,
    })
    if (fetched.tooLarge) return { ok: false, reason: 'too large' }
    if (fetched.refused) return { ok: false, reason: 'not an image' }
    const sniffed = sniffImage(fetched.body)
    if (typeof sniffed === 'string') return { ok: false, reason: sniffed }
    return { ok: true, ...sniffed, bytes: fetched.body }
  } catch (error) {
    if (error instanceof FetchRefusedError || error instanceof FetchFailedError)
      return { ok: false, reason: `${error.name}: ${error.reason}` }
    return { ok: false, reason: 'failed' }
  }
}
