import { Elysia } from 'elysia'
import { ICON_PATHS, iconResponse, manifestResponse } from './app-assets.ts'
import type { RouteContext } from '../route-context.ts'
import { captureFromPage } from './capture-from-page.ts'
import { pageReplies, type SignedIn, type SignedInForm } from './page-replies.ts'
import { formRoute, hidden } from './route-options.ts'
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
export function saveRoutes({ deps, guard }: RouteContext) {
  const { page } = pageReplies(deps.config)

  // A GET never saves: it shows what would be saved and a "Save" button. Signed out, it leads to sign-in
  // and back here with the same link.
  const showSave = async (c: SignedIn) => {
    const link = sharedLink(new URL(c.request.url).searchParams)
    return page(c, 200, 'Save', savePage({ csrf: c.csrf, ...link }))
  }

  const save = async (c: SignedInForm) => {
    const { url, title } = sharedLink(c.form)
    const saved = await captureFromPage(deps, c.session, url)
    if (saved) return page(c, 200, 'Saved', savedPage({ url: saved.url, title, again: !saved.created }))
    const error = 'That is not a web address that can be saved: it must start with http:// or https://.'
    return page(c, 400, 'Save', savePage({ csrf: c.csrf, url, title, error }))
  }

  let routes = new Elysia()
    .use(guard)
    .get('/save', showSave, { ...hidden, signedIn: true })
    .post('/save', save, { ...formRoute, signedIn: true })
    .get('/manifest.webmanifest', () => manifestResponse(), hidden)
  for (const path of ICON_PATHS) routes = routes.get(path, () => iconResponse(path), hidden) as typeof routes
  return routes
}
