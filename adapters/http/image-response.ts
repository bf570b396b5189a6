import type { ArchivedImage } from '../app/item-images.ts'

/**
 * An archived image as both of its routes answer it (docs/reading.md#archived-images): the type sniffed
 * from its bytes when it was archived (the pipeline adds `X-Content-Type-Options: nosniff`, so a browser
 * never reads it as anything else), and cached by the person's browser for a year: an image's URL never
 * answers other bytes (adapters/storage/schema.ts, `item_images`), and `private` keeps shared caches out.
 */
export function imageResponse(image: ArchivedImage): Response {
  return new Response(image.bytes as Uint8Array<ArrayBuffer>, {
    headers: {
      'content-type': image.mediaType,
      'content-length': String(image.bytes.byteLength),
      'cache-control': 'private, max-age=31536000, immutable',
    },
  })
}
