import { ImageNotFoundError, SavedItemNotFoundError } from '../../core/errors.ts'
import type { Principal } from '../../core/types.ts'
import { archivedImageBytesOf, archivedImagesOfItem, readArchivedImage } from '../storage/item-images.ts'
import type { Database } from '../storage/open-database.ts'

// An article's archived images (docs/reading.md#archived-images), as the image routes, Settings, the CLI
// and anything that copies an article with its images (an export, an offline copy) read them.

/** One archived image: its bytes and the type sniffed from them when it was archived. */
export interface ArchivedImage {
  mediaType: string
  bytes: Uint8Array
}

/** `n` as written in a URL: a positive integer without sign, leading zero or anything else. */
const NUMBER = /^[1-9][0-9]{0,8}$/

/**
 * The person's item's n-th archived image (`n` as the URL has it). SavedItemNotFoundError when they have no
 * such item (another person's included), ImageNotFoundError when the item has no image of that number.
 */
export async function readItemImage(
  deps: { db: Database },
  principal: Principal,
  itemId: string,
  n: string,
): Promise<ArchivedImage> {
  // A malformed number is no image's (they start at 1), yet the read still tells a missing item apart.
  const found = await readArchivedImage(deps.db, principal.userId, itemId, NUMBER.test(n) ? Number(n) : 0)
  if (found === 'no item') throw new SavedItemNotFoundError(itemId)
  if (found === null) throw new ImageNotFoundError(itemId, n)
  return found
}

/** The numbers, types and sizes of the person's item's archived images (none for another person's item). */
export function itemImagesOf(
  deps: { db: Database },
  principal: Principal,
  itemId: string,
): Promise<{ n: number; mediaType: string; size: number }[]> {
  return archivedImagesOfItem(deps.db, principal.userId, itemId)
}

/** Bytes of archived images the person's items hold (Settings' storage line, docs/web.md#settings). */
export function imageStorageOf(deps: { db: Database }, principal: Principal): Promise<number> {
  return archivedImageBytesOf(deps.db, principal.userId)
}
