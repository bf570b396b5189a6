import { Elysia } from 'elysia'
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
  const { page, run, posted, signedIn, captureFromPage } = kit

  // A GET never saves: it shows what would be saved and a "Save" button. Signed out, it leads to sign-in
  // and back here with the same link.
  const showSave = signedIn(async (visit) => {
    const link = sharedLink(visit.url.searchParams)
    return page(visit, 200, 'Save', savePage({ csrf: visit.csrf, ...link }))
  })

  const save = (visit: Visit, form: URLSearchParams) =>
    signedIn(async (visit) => {
      const { url, title } = sharedLink(form)
      const saved = await captureFromPage(visit.session, url)
      if (saved) return page(visit, 200, 'Saved', savedPage({ url: saved.url, title, again: !saved.created }))
      const error = 'That is not a web address that can be saved: it must start with http:// or https://.'
      return page(visit, 400, 'Save', savePage({ csrf: visit.csrf, url, title, error }))
    })(visit)

  let routes = new Elysia()
    .get('/save', run(showSave), hidden)
    .post('/save', posted(save), formRoute)
    .get('/manifest.webmanifest', () => manifestResponse(), hidden)
  for (const path of ICON_PATHS) routes = routes.get(path, () => iconResponse(path), hidden) as typeof routes
  return routes
}
