import { logUnexpected } from '../../app/unexpected.ts'
import { Elysia } from 'elysia'
import { isScope } from '../../../core/auth/scopes.ts'
import { ImportFormatError, isAppError, PayloadTooLargeError } from '../../../core/errors.ts'
import { uuidv7 } from '../../../core/ids.ts'
import { prepareCapture } from '../../../core/items/capture.ts'
import { MAX_PAGE_SIZE } from '../../../core/items/list-order.ts'
import { toTimestamp } from '../../../core/time.ts'
import { hashPassword, passwordProblem, verifyPassword } from '../../app/passwords.ts'
import { STATUS_BY_TAG } from '../errors.ts'
import type { RouteContext } from '../route-context.ts'
import { tooManyAttemptsPage } from './pages/message.ts'
import { listApiKeys, revokeApiKey } from '../../storage/api-keys.ts'
import { issueApiKey, keyLabelProblem } from '../../app/api-keys.ts'
import { createAccount } from '../../app/accounts.ts'
import { listFolders } from '../../storage/folders.ts'
import { listActiveGrants, revokeGrant } from '../../storage/oauth-grants.ts'
import { changeSavedItem, findSavedItem, listSavedItems, upsertCapture } from '../../storage/saved-items.ts'
import { itemsWithContent } from '../../storage/reading.ts'
import { readContent, saveProgress } from '../../app/reading.ts'
import { findUserByEmail, findUserById, markSignupAttempt } from '../../storage/users.ts'
import { deleteAccount } from '../../storage/delete-account.ts'
import { readForm, safeNext, signInPath } from './forms.ts'
import { emailProblem } from '../../app/email.ts'
import { type SafeHtml } from './html.ts'
import { HTML_HEADERS, layout, READER_CSP, type PageOptions } from './layout.ts'
import { landingPage } from './pages/landing.ts'
import { messagePage } from './pages/message.ts'
import { queuePage, type QueueView } from './pages/queue.ts'
import { readerPage, readerTitle } from './pages/reader.ts'
import { progressOf, readerScriptResponse, sessionPrincipal } from './reader.ts'
import { READER_SCRIPT_PATH, READER_SCRIPT_VERSION } from './reader-script.ts'
import { searchFor } from './search.ts'
import { READER_STYLES } from './styles.ts'
import { settingsPage, type SettingsView } from './pages/settings.ts'
import { importProgressPage } from './pages/import-export.ts'
import { importOf, importsOf, startImport } from '../../app/imports.ts'
import { exportDownload, exportFormatOf } from '../../app/export.ts'
import { IMPORT_MAX_BYTES } from '../../../core/import/types.ts'
import { readBodyCapped } from '../body.ts'
import { signInPage } from './pages/sign-in.ts'
import { signOutPage } from './pages/sign-out.ts'
import { signUpClosedPage, signUpPage } from './pages/sign-up.ts'
import {
  cookieHeader,
  createWebSession,
  csrfTokenFor,
  deleteOtherWebSessions,
  deleteWebSession,
  isValidCsrf,
  newCsrfToken,
  readWebSession,
  sessionCookieName,
  SESSION_DAYS,
  type WebSession,
} from './session.ts'
import { accountThrottle } from './sign-in-throttle.ts'

/** One page request: who is signed in, the CSRF token for its forms, and cookies to set on the way out. */
interface Visit {
  request: Request
  url: URL
  session: WebSession | null
  csrf: string
  cookies: string[]
}

type Handler = (visit: Visit) => Promise<Response>
type FormHandler = (visit: Visit, form: URLSearchParams) => Promise<Response>

const WRONG_CREDENTIALS = 'Wrong email or password.'
/** How long settings tells the owner that someone tried to sign up with their email. */
const SIGNUP_ATTEMPT_NOTICE_DAYS = 30
const SIGNED_UP = 'If this email had no account, it has one now: sign in with the password you chose.'

/**
 * The server-rendered web app (docs/web.md#pages). Pages are outside the API guard: they read the session
 * cookie themselves and check the CSRF field on every POST before anything is written.
 */
export const webRoutes = ({ deps, ipLimits }: RouteContext) => {
  // Account creation is as abusable as sign-in.
  ipLimits.limit('POST', '/sign-in', tooManyAttemptsPage)
  ipLimits.limit('POST', '/sign-up', tooManyAttemptsPage)
  const { db, config } = deps
  const secure = config.appUrl.startsWith('https:')
  const signupOpen = config.signup === 'open'
  const now = (): string => toTimestamp(deps.clock.now())
  const newId = (): string => uuidv7(deps.clock.now().getTime(), deps.random)
  // Unknown emails are checked against this too, so both failures of sign-in take the same time.
  let dummyHash: Promise<string> | undefined
  const timingDummy = (): Promise<string> => (dummyHash ??= hashPassword(`timing-equaliser-${newId()}`))

  async function visitOf(request: Request): Promise<Visit> {
    const csrf = csrfTokenFor(request, deps, secure)
    return {
      request,
      url: new URL(request.url),
      session: await readWebSession(db, request, deps.clock.now(), secure),
      csrf: csrf.token,
      cookies: csrf.setCookie ? [csrf.setCookie] : [],
    }
  }

  function page(
    visit: Visit,
    status: number,
    title: string,
    body: SafeHtml,
    extra: Pick<PageOptions, 'styles' | 'script' | 'mainClass' | 'refreshSeconds'> & { csp?: string } = {},
  ): Response {
    const headers = new Headers(HTML_HEADERS)
    if (extra.csp) headers.set('content-security-policy', extra.csp)
    for (const cookie of visit.cookies) headers.append('set-cookie', cookie)
    const { csp: _, ...options } = extra
    const signedInAs = visit.session?.email ?? null
    const text = layout({ title, body, signedInAs, csrfToken: visit.csrf, signupOpen, ...options })
    return new Response(text, { status, headers })
  }

  function redirect(visit: Visit, location: string): Response {
    const headers = new Headers({ location, 'cache-control': 'no-store' })
    for (const cookie of visit.cookies) headers.append('set-cookie', cookie)
    return new Response(null, { status: 303, headers })
  }

  const message = (
    visit: Visit,
    status: number,
    heading: string,
    text: string,
    link?: { href: string; label: string },
  ): Response => page(visit, status, heading, messagePage({ heading, text, link }))

  const sessionCookie = (token: string, maxAgeSeconds: number): string =>
    cookieHeader(sessionCookieName(secure), token, { secure, maxAgeSeconds })

  /** Every failure becomes a page, never the API's JSON: a too-large form (413) or an unexpected error (500). */
  function run(handler: Handler) {
    return async ({ request }: { request: Request }): Promise<Response> => {
      const visit = await visitOf(request)
      try {
        return await handler(visit)
      } catch (error) {
        if (isAppError(error))
          return message(visit, STATUS_BY_TAG[error._tag], 'Request refused', error.message, {
            href: '/',
            label: 'Back',
          })
        logUnexpected(deps.log, 'web page failed', error, { path: visit.url.pathname })
        return message(
          visit,
          500,
          'Something went wrong',
          'The server could not handle this request. Please try again.',
          { href: '/', label: 'Back' },
        )
      }
    }
  }

  /** A POST: the form is read (capped), and refused with 403 before anything else when its CSRF field is wrong. */
  const posted = (handler: FormHandler) =>
    run(async (visit) => {
      const form = await readForm(visit.request)
      if (!isValidCsrf(visit.request, form.get('csrf'), secure)) {
        const path = visit.url.pathname
        const back = path.startsWith('/settings')
          ? '/settings'
          : path.startsWith('/items/')
            ? path.replace(/^(\/items\/[^/]+).*$/, '$1')
            : path.startsWith('/queue')
              ? '/'
              : path
        return message(
          visit,
          403,
          'Form expired',
          'This form could not be verified (its security token is missing or stale). Reload the page and try again.',
          { href: back, label: 'Reload the form' },
        )
      }
      return handler(visit, form)
    })

  /** A signed-in person's page or action; others are sent to sign in and brought back. */
  const signedIn =
    (handler: (visit: Visit & { session: WebSession }) => Promise<Response>): Handler =>
    async (visit) =>
      visit.session
        ? handler(visit as Visit & { session: WebSession })
        : redirect(visit, signInPath(visit.request.method === 'GET' ? visit.url.pathname + visit.url.search : '/'))

  const nextOf = (value: string | null | undefined): string => safeNext(value, config.appUrl)

  // ── Accounts ────────────────────────────────────────────────────────────────────────────────────

  async function startSession(visit: Visit, userId: string, next: string): Promise<Response> {
    // A fresh token on every sign-in: a session id planted before sign-in is never promoted (fixation).
    if (visit.session) await deleteWebSession(db, visit.session.tokenHash)
    const token = await createWebSession(db, deps, userId)
    visit.cookies.push(sessionCookie(token, SESSION_DAYS * 86_400))
    rotateCsrf(visit)
    return redirect(visit, next)
  }

  /** A new CSRF token at sign-in and sign-out: one read before cannot be used with the new session. */
  function rotateCsrf(visit: Visit): void {
    const fresh = newCsrfToken(deps, secure)
    visit.csrf = fresh.token
    visit.cookies.push(fresh.setCookie)
  }

  const showSignUp = async (visit: Visit): Promise<Response> => {
    if (!signupOpen) return page(visit, 403, 'Sign-up is closed', signUpClosedPage())
    const next = nextOf(visit.url.searchParams.get('next'))
    if (visit.session) return redirect(visit, next)
    return page(visit, 200, 'Create account', signUpPage({ csrf: visit.csrf, next }))
  }

  const signUp: FormHandler = async (visit, form) => {
    if (!signupOpen) return page(visit, 403, 'Sign-up is closed', signUpClosedPage())
    const email = (form.get('email') ?? '').trim()
    const password = form.get('password') ?? ''
    const next = nextOf(form.get('next'))
    const again = (status: number, error: string): Response =>
      page(visit, status, 'Create account', signUpPage({ csrf: visit.csrf, next, email, error }))
    const problem = emailProblem(email) ?? passwordProblem(password)
    if (problem) return again(422, problem.charAt(0).toUpperCase() + problem.slice(1).replace(/[^.]$/, '$&.'))
    // The same work and the same answer whether or not the email has an account, so sign-up cannot be
    // used to find out who uses this server (docs/security.md#sign-up-and-sign-in). The owner of a taken
    // email sees the attempt in settings instead; a new account signs in like everyone else.
    const account = await createAccount(deps, { email, password })
    if (account.kind === 'email-taken') {
      const owner = await markSignupAttempt(db, email, now())
      deps.log('info', { msg: 'sign-up for an existing account', userId: owner })
    } else {
      deps.log('info', { msg: 'account created', userId: account.id, via: 'web' })
    }
    return redirect(visit, `${signInPath(next)}${next === '/' ? '?' : '&'}signed-up=1`)
  }

  const showSignIn = async (visit: Visit): Promise<Response> => {
    const next = nextOf(visit.url.searchParams.get('next'))
    if (visit.session) return redirect(visit, next)
    const notice = visit.url.searchParams.get('signed-up') === '1' ? SIGNED_UP : null
    return page(visit, 200, 'Sign in', signInPage({ csrf: visit.csrf, next, signupOpen, notice }))
  }

  const signIn: FormHandler = async (visit, form) => {
    const email = (form.get('email') ?? '').trim()
    const password = form.get('password') ?? ''
    const next = nextOf(form.get('next'))
    // Per account on top of the per-IP limit: guesses spread over many addresses still stop. Keyed by the
    // email, account or not, so the lock tells nothing about who has one (docs/security.md#sign-up-and-sign-in).
    const throttle = await accountThrottle(deps, email)
    if (throttle.locked) {
      return page(
        visit,
        429,
        'Sign in',
        signInPage({ csrf: visit.csrf, next, email, error: throttle.message, signupOpen }),
      )
    }
    const user = email ? await findUserByEmail(db, email) : null
    // Same work and the same answer whether the email is unknown or the password wrong: no account probing.
    const valid = user
      ? await verifyPassword(user.passwordHash, password)
      : (await verifyPassword(await timingDummy(), password), false)
    if (!user || !valid) {
      await throttle.fail()
      return page(
        visit,
        401,
        'Sign in',
        signInPage({ csrf: visit.csrf, next, email, error: WRONG_CREDENTIALS, signupOpen }),
      )
    }
    return startSession(visit, user.id, next)
  }

  const showSignOut = async (visit: Visit): Promise<Response> =>
    visit.session
      ? page(visit, 200, 'Sign out', signOutPage({ csrf: visit.csrf, email: visit.session.email }))
      : redirect(visit, '/sign-in')

  const signOut: FormHandler = async (visit) => {
    if (visit.session) await deleteWebSession(db, visit.session.tokenHash)
    visit.cookies.push(sessionCookie('', 0))
    rotateCsrf(visit)
    return redirect(visit, '/sign-in')
  }

  // ── Settings ────────────────────────────────────────────────────────────────────────────────────

  async function settings(
    visit: Visit & { session: WebSession },
    status: number,
    extra: Partial<SettingsView> = {},
  ): Promise<Response> {
    const userId = visit.session.userId
    const [keys, agents, user, imports] = await Promise.all([
      listApiKeys(db, userId),
      listActiveGrants(db, userId),
      findUserById(db, userId),
      importsOf(deps, sessionPrincipal(visit.session)),
    ])
    keys.sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : b.id.localeCompare(a.id)))
    // A key issued through the connect flow names its issuer; while the key is in force so is the issuer.
    const labels = new Map(keys.map((key) => [key.id, key.label]))
    const clients = new Map(agents.map((agent) => [agent.grantId, agent.clientName]))
    const issuedBy = new Map(
      keys.flatMap((key) => {
        const name = key.issuedByKeyId
          ? labels.get(key.issuedByKeyId)
          : key.issuedByGrantId
            ? clients.get(key.issuedByGrantId)
            : undefined
        return name === undefined ? [] : [[key.id, name] as const]
      }),
    )
    const attempt = user?.signupAttemptedAt ?? null
    const recentAttempt =
      attempt && deps.clock.now().getTime() - Date.parse(attempt) < SIGNUP_ATTEMPT_NOTICE_DAYS * 86_400_000
        ? attempt
        : null
    return page(
      visit,
      status,
      'Settings',
      settingsPage({
        csrf: visit.csrf,
        email: visit.session.email,
        keys,
        agents,
        issuedBy,
        signupAttemptedAt: recentAttempt,
        imports,
        ...extra,
      }),
    )
  }

  const NOTICES: Record<string, string> = {
    'key-revoked': 'API key revoked. It no longer works, nor do the keys issued through it.',
    'agent-revoked': 'Agent disconnected. Its tokens no longer work, nor do the keys issued through it.',
    'signed-out-others': 'Every other session is signed out.',
  }

  const signOutOthers = (visit: Visit) =>
    signedIn(async (visit) => {
      const ended = await deleteOtherWebSessions(db, visit.session.userId, visit.session.tokenHash)
      deps.log('info', { msg: 'other sessions signed out', userId: visit.session.userId, ended })
      return redirect(visit, '/settings?done=signed-out-others')
    })(visit)

  const deleteOwnAccount = (visit: Visit, form: URLSearchParams) =>
    signedIn(async (visit) => {
      const user = await findUserById(db, visit.session.userId)
      if (!user || !(await verifyPassword(user.passwordHash, form.get('password') ?? ''))) {
        return settings(visit, 403, { deleteError: 'That is not your password. Nothing was deleted.' })
      }
      await deleteAccount(db, user.id)
      deps.log('info', { msg: 'account deleted', userId: user.id, via: 'web' })
      ;(visit as Visit).session = null
      visit.cookies.push(sessionCookie('', 0))
      rotateCsrf(visit)
      return message(
        visit,
        200,
        'Account deleted',
        'Your account and everything in it are gone: saved items, folders, API keys and connected agents. This email can be used to create a new account.',
        { href: '/', label: 'Go to the start page' },
      )
    })(visit)

  // ── Import and export (docs/web.md#import-and-export) ──────────────────────────────────────────

  /** The upload: a multipart form (the file and the CSRF field), read up to the import's limit. */
  const uploadImport = signedIn(async (visit) => {
    const type = visit.request.headers.get('content-type') ?? ''
    let form: FormData | null = null
    try {
      const body = await readBodyCapped(visit.request, IMPORT_MAX_BYTES + 64 * 1024)
      if (type.toLowerCase().startsWith('multipart/form-data'))
        form = await new Response(new Blob([body as BlobPart]), { headers: { 'content-type': type } }).formData()
    } catch (error) {
      if (!(error instanceof PayloadTooLargeError)) form = null
      else return settings(visit, 400, { importError: 'The file is over the 50 MiB limit of an import.' })
    }
    const csrf = form?.get('csrf')
    if (!isValidCsrf(visit.request, typeof csrf === 'string' ? csrf : null, secure))
      return message(
        visit,
        403,
        'Form expired',
        'This form could not be verified (its security token is missing or stale). Reload the page and try again.',
        { href: '/settings', label: 'Reload the form' },
      )
    const file = form?.get('file')
    if (!file || typeof file === 'string' || file.size === 0)
      return settings(visit, 400, { importError: 'Choose a file to import.' })
    try {
      const started = await startImport(deps, sessionPrincipal(visit.session), {
        bytes: new Uint8Array(await file.arrayBuffer()),
        format: null,
        contentType: file.type || null,
      })
      return redirect(visit, `/settings/imports/${started.id}`)
    } catch (error) {
      if (error instanceof ImportFormatError)
        return settings(visit, 400, { importError: `Nothing was imported: ${error.message}.` })
      throw error
    }
  })

  const showImport = (visit: Visit, id: string) =>
    signedIn(async (visit) => {
      const job = await importOf(deps, sessionPrincipal(visit.session), id)
      if (!job)
        return message(visit, 404, 'No such import', 'There is no import with this address in your account.', {
          href: '/settings',
          label: 'Back to settings',
        })
      const running = job.status !== 'done' && job.status !== 'failed'
      return page(visit, 200, 'Import', importProgressPage(job), running ? { refreshSeconds: 1 } : {})
    })(visit)

  const downloadExport = signedIn(async (visit) =>
    exportDownload(deps, sessionPrincipal(visit.session), exportFormatOf(visit.url.searchParams.get('format'))),
  )

  const showSettings = signedIn((visit) =>
    settings(visit, 200, { notice: NOTICES[visit.url.searchParams.get('done') ?? ''] ?? null }),
  )

  const createKey = (visit: Visit, form: URLSearchParams) =>
    signedIn(async (visit) => {
      const label = (form.get('label') ?? '').trim()
      const scopes = [...new Set(form.getAll('scope'))]
      const labelProblem = keyLabelProblem(label)
      const error = labelProblem
        ? `${labelProblem.charAt(0).toUpperCase()}${labelProblem.slice(1)}.`
        : scopes.length === 0
          ? 'Choose at least one scope.'
          : !scopes.every(isScope)
            ? 'Choose scopes from the list.'
            : null
      if (error) return settings(visit, 422, { form: { label, scopes, error } })
      const { key } = (await issueApiKey(deps, {
        userId: visit.session.userId,
        label,
        scopes: scopes.filter(isScope),
      }))!
      // Rendered in this response only: the database keeps the hash, and no flash or log ever holds the key.
      return settings(visit, 201, { newKey: { key, label } })
    })(visit)

  const revokeKey = (visit: Visit, id: string) =>
    signedIn(async (visit) => {
      if (!(await revokeApiKey(db, visit.session.userId, id, now())))
        return message(visit, 404, 'No such key', 'There is no active API key with that id.', {
          href: '/settings',
          label: 'Back to settings',
        })
      return redirect(visit, '/settings?done=key-revoked')
    })(visit)

  const revokeAgent = (visit: Visit, grantId: string) =>
    signedIn(async (visit) => {
      if (!(await revokeGrant(db, grantId, now(), visit.session.userId)))
        return message(visit, 404, 'No such agent', 'There is no connected agent with that id.', {
          href: '/settings',
          label: 'Back to settings',
        })
      return redirect(visit, '/settings?done=agent-revoked')
    })(visit)

  // ── Queue ───────────────────────────────────────────────────────────────────────────────────────

  async function queue(
    visit: Visit & { session: WebSession },
    status: number,
    extra: Partial<QueueView> = {},
  ): Promise<Response> {
    const userId = visit.session.userId
    // A search replaces the list, so the queue itself is not read for it.
    const search = await searchFor(deps, visit.session, visit.url.searchParams)
    if (search) {
      const view = {
        csrf: visit.csrf,
        items: [],
        folders: [],
        folder: '',
        readable: new Set<string>(),
        truncated: false,
      }
      const body = queuePage({ ...view, ...extra, search })
      return page(visit, search.error ? 400 : status, 'Search', body)
    }
    const folders = await listFolders(db, userId)
    const wanted = visit.url.searchParams.get('folder') ?? ''
    // An unknown folder id shows everything rather than an empty list that looks like data loss.
    const folder = wanted === 'none' || folders.some((f) => f.id === wanted) ? wanted : ''
    const { items, nextCursorValues } = await listSavedItems(db, userId, {
      sort: 'newest',
      folder: folder || null,
      limit: MAX_PAGE_SIZE,
      after: null,
    })
    // One query for the page, not one per item.
    const readable = await itemsWithContent(
      db,
      items.map((item) => item.id),
    )
    return page(
      visit,
      status,
      'Your queue',
      queuePage({ csrf: visit.csrf, items, folders, folder, readable, truncated: nextCursorValues !== null, ...extra }),
    )
  }

  const home = async (visit: Visit): Promise<Response> => {
    if (visit.session)
      return queue(visit as Visit & { session: WebSession }, 200, {
        notice: visit.url.searchParams.get('done') === 'saved' ? 'Saved.' : null,
      })
    // A search link (a bookmark, another tab signed out) is a signed-in page: sign in and come back to it.
    if ((visit.url.searchParams.get('q') ?? '').trim() !== '')
      return redirect(visit, signInPath(visit.url.pathname + visit.url.search))
    return page(visit, 200, 'Readlater', landingPage({ signupOpen }))
  }

  const capture = (visit: Visit, form: URLSearchParams) =>
    signedIn(async (visit) => {
      const url = (form.get('url') ?? '').trim()
      let prepared
      try {
        prepared = prepareCapture(
          { url, captureChannel: 'web-companion' },
          { id: newId(), userId: visit.session.userId, now: deps.clock.now(), connectClient: null },
        )
      } catch (error) {
        if (isAppError(error) && error._tag === 'InvalidUrlError')
          return queue(visit, 400, {
            capture: { url, error: 'Enter a full web address starting with http:// or https://.' },
          })
        throw error
      }
      await upsertCapture(db, prepared)
      return redirect(visit, '/?done=saved')
    })(visit)

  const setReadState = (visit: Visit, form: URLSearchParams, id: string) =>
    signedIn(async (visit) => {
      const isRead = form.get('isRead')
      if (isRead !== 'true' && isRead !== 'false')
        return message(visit, 400, 'Request refused', 'isRead must be true or false.', { href: '/', label: 'Back' })
      try {
        await changeSavedItem(db, visit.session.userId, id, { kind: 'read-state', isRead: isRead === 'true' }, now())
      } catch (error) {
        if (isAppError(error) && error._tag === 'SavedItemNotFoundError')
          return message(visit, 404, 'No such item', 'That item is not in your queue.', {
            href: '/',
            label: 'Back to the queue',
          })
        throw error
      }
      // The reader view's button comes back to the item; the queue's to the queue as it was filtered.
      if (form.get('return') === 'reader') return redirect(visit, `/items/${encodeURIComponent(id)}`)
      const folder = form.get('folder') ?? ''
      return redirect(visit, folder ? `/?folder=${encodeURIComponent(folder)}` : '/')
    })(visit)

  // ── Reader view ─────────────────────────────────────────────────────────────────────────────────

  // Another person's item answers exactly as an id that does not exist, and as any unknown page.
  const notFound = (visit: Visit): Response =>
    message(visit, 404, 'Page not found', 'There is nothing at this address.', {
      href: '/',
      label: 'Go to your queue',
    })

  const showItem = (visit: Visit, id: string) =>
    signedIn(async (visit) => {
      const item = await findSavedItem(db, visit.session.userId, id)
      if (!item) return notFound(visit)
      let content = null
      try {
        content = await readContent(deps, sessionPrincipal(visit.session), id, 'html')
      } catch (error) {
        if (!isAppError(error)) throw error
        // Deleted since the line above.
        if (error._tag === 'SavedItemNotFoundError') return notFound(visit)
        if (error._tag !== 'ContentNotFoundError') throw error
      }
      const view = { csrf: visit.csrf, item, content }
      return page(visit, 200, readerTitle(view), readerPage(view), {
        csp: READER_CSP,
        styles: READER_STYLES,
        mainClass: 'reader-main',
        ...(content ? { script: `${READER_SCRIPT_PATH}?v=${READER_SCRIPT_VERSION}` } : {}),
      })
    })(visit)

  /** An answer for the reader's script, which reads only the status: never a page, never a redirect. */
  const scriptAnswer = (visit: Visit, status: number, text?: string): Response => {
    const headers = new Headers({ 'cache-control': 'no-store' })
    if (text) headers.set('content-type', 'text/plain; charset=utf-8')
    for (const cookie of visit.cookies) headers.append('set-cookie', cookie)
    return new Response(text ?? null, { status, headers })
  }

  const recordProgress = async (visit: Visit, form: URLSearchParams, id: string): Promise<Response> => {
    if (!visit.session) return scriptAnswer(visit, 401, 'Sign in again to save your place.')
    const progress = progressOf(form.get('progress'))
    if (progress === null) return scriptAnswer(visit, 400, 'progress must be a number from 0 to 1.')
    try {
      await saveProgress(deps, sessionPrincipal(visit.session), id, progress)
    } catch (error) {
      if (isAppError(error) && error._tag === 'SavedItemNotFoundError') return scriptAnswer(visit, 404, 'No such item.')
      throw error
    }
    return scriptAnswer(visit, 204)
  }

  const paramOf = (visit: Visit, index: number): string => {
    try {
      return decodeURIComponent(visit.url.pathname.split('/')[index] ?? '')
    } catch {
      return ''
    }
  }

  const hidden = { detail: { hide: true } }
  const form = { ...hidden, parse: 'none' as const }
  return new Elysia()
    .get('/', run(home), hidden)
    .get('/sign-up', run(showSignUp), hidden)
    .post('/sign-up', posted(signUp), form)
    .get('/sign-in', run(showSignIn), hidden)
    .post('/sign-in', posted(signIn), form)
    .get('/sign-out', run(showSignOut), hidden)
    .post('/sign-out', posted(signOut), form)
    .get('/settings', run(showSettings), hidden)
    .post('/settings/api-keys', posted(createKey), form)
    .post(
      '/settings/api-keys/:id/revoke',
      posted((visit) => revokeKey(visit, paramOf(visit, 3))),
      form,
    )
    .post(
      '/settings/agents/:grantId/revoke',
      posted((visit) => revokeAgent(visit, paramOf(visit, 3))),
      form,
    )
    .post('/settings/sessions/sign-out-others', posted(signOutOthers), form)
    .post('/settings/import', run(uploadImport), form)
    .get(
      '/settings/imports/:id',
      run((visit) => showImport(visit, paramOf(visit, 3))),
      hidden,
    )
    .get('/settings/export', run(downloadExport), hidden)
    .post('/settings/delete-account', posted(deleteOwnAccount), form)
    .post('/queue/capture', posted(capture), form)
    .post(
      '/queue/items/:id/read-state',
      posted((visit, form) => setReadState(visit, form, paramOf(visit, 3))),
      form,
    )
    .get(
      '/items/:id',
      run((visit) => showItem(visit, paramOf(visit, 2))),
      hidden,
    )
    .post(
      '/items/:id/progress',
      posted((visit, form) => recordProgress(visit, form, paramOf(visit, 2))),
      form,
    )
    .get(READER_SCRIPT_PATH, ({ request, query }) => readerScriptResponse(request, query.v), hidden)
}
