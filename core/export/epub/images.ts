import { type ArchivedImageType, sniffImage } from '../../reading/image-sniff.ts'
import { xmlText } from './xml.ts'

/**
 * The images of an EPUB (docs/import-export.md#epub-images): which `src` of an article becomes a file in
 * the book, and as what.
 */

/** An image as the archive keeps it: its media type and its bytes. */
export interface ArchivedImage {
  mediaType: string
  bytes: Uint8Array
}

/**
 * Reads one of the person's archived images, `{app}/items/{itemId}/images/{n}`: null when there is none
 * (not archived, another person's item). The port the book reads images through (docs/reading.md#archived-images); the
 * caller binds it to the person.
 */
export type ReadArchivedImage = (itemId: string, n: number) => Promise<ArchivedImage | null>

/** The image types a book carries (the archive's five): EPUB's core media types, and WebP and AVIF, which need a fallback. */
export type BookImageType = ArchivedImageType

/**
 * WebP and AVIF are not core media types of EPUB 3.2 (epubcheck MED-003): the reading systems the spec
 * covers need not show them. Such an image is kept, and declared with a manifest fallback to a small SVG
 * (a core type) that says what the image was; a reader that shows WebP shows the image.
 */
export const NEEDS_FALLBACK: ReadonlySet<BookImageType> = new Set(['image/webp', 'image/avif'])

export const IMAGE_EXTENSIONS: Record<BookImageType, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'image/avif': 'avif',
}

/**
 * The type of an image by its bytes, never by what it was called (core/reading/image-sniff.ts, the archive's
 * own reading: the signature, and dimensions that are there and at most 50 megapixels): a book declares each
 * file's type and epubcheck (and a reading system) reads the file by it. Null for anything else (SVG, BMP,
 * HTML served as an image, a truncated header): that image is not put in the book.
 */
export function bookImageType(bytes: Uint8Array): BookImageType | null {
  const sniffed = sniffImage(bytes)
  return typeof sniffed === 'string' ? null : sniffed.mediaType
}

const DATA_IMAGE = /^data:image\/[a-z0-9.+-]+;base64,([a-z0-9+/=\s]*)$/i

/** The bytes of a `data:image/…;base64,` source (the sanitizer keeps those), or null. */
export function dataImageBytes(src: string): Uint8Array | null {
  const match = DATA_IMAGE.exec(src)
  if (!match) return null
  try {
    const binary = atob(match[1]!.replace(/\s+/g, ''))
    const bytes = new Uint8Array(binary.length)
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i)
    return bytes
  } catch {
    return null
  }
}

/**
 * The fallback of a WebP or AVIF image: an SVG the size of a line of text saying what the image was (its
 * alt text, cut to 120 characters), for a reading system that cannot show the image itself.
 */
export function fallbackSvg(alt: string, type: BookImageType): string {
  const kind = type === 'image/webp' ? 'WebP' : 'AVIF'
  const points = [...alt.replace(/\s+/g, ' ').trim()]
  const label =
    points.length === 0
      ? `A ${kind} image this reader cannot show`
      : `${kind} image: ${points.length > 120 ? `${points.slice(0, 119).join('')}…` : points.join('')}`
  return `<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="600" height="60" viewBox="0 0 600 60">
<rect x="1" y="1" width="598" height="58" fill="none" stroke="#000000" stroke-width="2"/>
<text x="12" y="36" font-family="sans-serif" font-size="16" fill="#000000">${xmlText(label)}</text>
</svg>
`
}
