import { Elysia } from 'elysia'
import { isAppError } from '../../../core/errors.ts'
import { prepareCapture } from '../../../core/items/capture.ts'
import { upsertCapture } from '../../storage/saved-items.ts'
import { ICON_PATHS, iconResponse, manifestResponse } from './app-assets.ts'
import { formRoute, hidden, type Visit, type WebKit } from './kit.ts'
import { savedPage, savePage } from './pages/save.ts'

/** Longest URL or title taken from a link (the capture rules cut URLs at 8 KB anyway). */
const MAX_FIELD = 8192

/**
 * The link a share or a bookmarklet sent: `url`, or else the first http(s) link inside `text` (Android's
 * share sheet puts it there for most apps), and the page's `title`.
 */
export function sharedLink(params: URLSearchParams): { url: string; title: string | null } {
  const url = (params.get('url') ?? '').trim()
  const text = params.get('text') ?? ''
  const found = url !== '' ? url : (/https?:\/\/[^\s<>"]+/i.exec(text)?.[0] ?? '')
  const title = (params.get('title') ?? '').replace(/\s+/g, ' ').trim()
  return { url: found.slice(0, MAX_FIELD), title: title === '' ? null : title.slice(0, 1000) }
}

/** Save from anywhere: `/save` for bookmarklets and the share sheet, the manifest and icons (docs/web.md#save-from-anywhere). */
export function saveRoutes(kit: WebKit) {
  const { deps, db, newId, page, run, posted, signedIn } = kit

  // A GET never saves: it shows what would be saved and a "Save" button. Signed out, it leads to sign-in
  // and back here with the same link.
  const showSave = signedIn(async (visit) => {
    const link = sharedLink(visit.url.searchParams)
    return page(visit, 200, 'Save', savePage({ csrf: visit.csrf, ...link }))
  })

  const save = (visit: Visit, form: URLSearchParams) =>
    signedIn(async (visit) => {
      const { url, title } = sharedLink(form)
      let prepared
      try {
        prepared = prepareCapture(
          { url, captureChannel: 'web-companion' },
          { id: newId(), userId: visit.session.userId, now: deps.clock.now(), connectClient: null },
        )
      } catch (error) {
        if (isAppError(error) && error._tag === 'InvalidUrlError')
          return page(
            visit,
            400,
            'Save',
            savePage({
              csrf: visit.csrf,
              url,
              title,
              error: 'That is not a web address that can be saved: it must start with http:// or https://.',
            }),
          )
        throw error
      }
      const { created } = await upsertCapture(db, prepared)
      return page(visit, 200, 'Saved', savedPage({ url: prepared.row.originalUrl, title, again: !created }))
    })(visit)

  let routes = new Elysia()
    .get('/save', run(showSave), hidden)
    .post('/save', posted(save), formRoute)
    .get('/manifest.webmanifest', () => manifestResponse(), hidden)
  for (const path of ICON_PATHS) routes = routes.get(path, () => iconResponse(path), hidden) as typeof routes
  return routes
}
