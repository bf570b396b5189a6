import { Elysia } from 'elysia'
import { isAppError } from '../../../core/errors.ts'
import { downloadResponse } from '../../app/download.ts'
import { itemEpub } from '../../app/epub.ts'
import type { RouteContext } from '../route-context.ts'
import { pageReplies, type SignedIn } from './page-replies.ts'
import { sessionPrincipal } from './reader.ts'
import { hidden, idParam, type WithId } from './route-options.ts'

/**
 * The reader view's "Download EPUB" (docs/web.md#reader-view): the signed-in person's item as a book, as
 * `GET /v1/saved-items/{id}/epub` makes it (docs/import-export.md#epub). The queue's and Settings' books go
 * through `/settings/export`.
 */
export function epubRoutes({ deps, guard }: RouteContext) {
  const { message } = pageReplies(deps.config)
  const download = async (c: SignedIn & WithId): Promise<Response> => {
    try {
      return downloadResponse(await itemEpub(deps, sessionPrincipal(c.session), c.params.id))
    } catch (error) {
      // Another person's item answers exactly as one that does not exist, and as any unknown page.
      if (isAppError(error) && error._tag === 'SavedItemNotFoundError')
        return message(c, 404, 'Page not found', 'There is nothing at this address.', {
          href: '/',
          label: 'Go to your queue',
        })
      throw error
    }
  }
  return new Elysia().use(guard).get('/items/:id/epub', download, { ...hidden, ...idParam, signedIn: true })
}
