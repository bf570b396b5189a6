import { Elysia } from 'elysia'
import { isScope } from '../../../core/auth/scopes.ts'
import { ImportFormatError, PayloadTooLargeError, RateLimitExceededError } from '../../../core/errors.ts'
import { deleteAccountWithPassword } from '../../app/accounts.ts'
import { CLEAR_OFFLINE_DATA } from './offline-routes.ts'
import { issueApiKey, keyLabelProblem, revokeKey as revokeApiKey } from '../../app/api-keys.ts'
import { revokeConsent } from '../../app/oauth-consent.ts'
import { sessionPrincipal } from './reader.ts'
import { settingsPage, type SettingsView } from './pages/settings.ts'
import { importProgressPage } from './pages/import-export.ts'
import { importOf, startImport } from '../../app/imports.ts'
import { exportDownload, exportRequestOf } from '../../app/export.ts'
import { IMPORT_MAX_BYTES } from '../../../core/import/types.ts'
import { readBodyCapped } from '../body.ts'
import { invalidateUserSessions } from '../../app/web-sessions.ts'
import { bookmarklet } from './pages/save.ts'
import { readSettings } from '../../app/settings-view.ts'
import type { RouteContext } from '../route-context.ts'
import { pageReplies, setCookie, type PageReplies, type SignedIn, type SignedInForm } from './page-replies.ts'
import { formRoute, grantIdParam, hidden, idParam, type WithId } from './route-options.ts'

/**
 * The settings page with what it lists loaded, and `extra` (what a form just did) on top: every settings
 * form answers with it, so a refused form comes back in place with the rest of the page as it stands.
 */
export function settingsRenderer(deps: RouteContext['deps'], { page }: PageReplies) {
  return async function settings(c: SignedIn, status: number, extra: Partial<SettingsView> = {}): Promise<Response> {
    const view = await readSettings(deps, sessionPrincipal(c.session))
    return page(
      c,
      status,
      'Settings',
      settingsPage({
        csrf: c.csrf,
        email: c.session.email,
        keys: view.keys,
        agents: view.agents,
        issuedBy: view.issuedBy,
        signupAttemptedAt: view.signupAttemptedAt,
        imports: view.imports,
        bookmarklet: bookmarklet(deps.config.appUrl),
        webhooks: view.webhooks,
        imageBytes: view.imageBytes,
        ...extra,
      }),
    )
  }
}

/**
 * Settings: API keys, connected agents, sessions, import and export, deleting the account (docs/web.md#pages);
 * webhooks are in webhook-routes.ts.
 */
export function settingsRoutes({ deps, guard, browser }: RouteContext) {
  const replies = pageReplies(deps.config)
  const { page, redirect, message } = replies
  const settings = settingsRenderer(deps, replies)

  const NOTICES: Record<string, string> = {
    'key-revoked': 'API key revoked. It no longer works, nor do the keys issued through it.',
    'agent-revoked': 'Agent disconnected. Its tokens no longer work, nor do the keys issued through it.',
    'signed-out-others': 'Every other session is signed out.',
    'webhook-deleted': 'Webhook deleted. Nothing more is sent to it, and its waiting messages are dropped.',
  }

  const signOutOthers = async (c: SignedIn) => {
    const ended = await invalidateUserSessions(deps, c.session.userId, { except: c.session.tokenHash })
    deps.log('info', { msg: 'other sessions signed out', userId: c.session.userId, ended })
    return redirect(c, '/settings?done=signed-out-others')
  }

  const deleteOwnAccount = async (c: SignedInForm) => {
    const userId = c.session.userId
    if (!(await deleteAccountWithPassword(deps, userId, c.form.get('password') ?? ''))) {
      return settings(c, 403, { deleteError: 'That is not your password. Nothing was deleted.' })
    }
    deps.log('info', { msg: 'account deleted', userId, via: 'web' })
    setCookie(c, browser.sessionCookie('', 0))
    // A new CSRF token, as at sign-out.
    const fresh = browser.newCsrf()
    setCookie(c, fresh.setCookie)
    const answer = message(
      { request: c.request, set: c.set, session: null, csrf: fresh.token },
      200,
      'Account deleted',
      'Your account and everything in it are gone: saved items, folders, API keys and connected agents. This email can be used to create a new account.',
      { href: '/', label: 'Go to the start page' },
    )
    // What the browser kept for reading offline goes too (docs/security.md#offline-storage).
    answer.headers.set('clear-site-data', CLEAR_OFFLINE_DATA)
    return answer
  }

  // ── Import and export (docs/import-export.md#web) ──────────────────────────────────────────

  /** The upload: a multipart form (the file and the CSRF field), read up to the import's limit. */
  const uploadImport = async (c: SignedIn) => {
    const type = c.request.headers.get('content-type') ?? ''
    let form: FormData | null = null
    try {
      const body = await readBodyCapped(c.request, IMPORT_MAX_BYTES + 64 * 1024)
      if (type.toLowerCase().startsWith('multipart/form-data'))
        form = await new Response(new Blob([body as BlobPart]), { headers: { 'content-type': type } }).formData()
    } catch (error) {
      if (!(error instanceof PayloadTooLargeError)) form = null
      else return settings(c, 400, { importError: 'The file is over the 50 MiB limit of an import.' })
    }
    const csrf = form?.get('csrf')
    if (!browser.isValidCsrf(c.request, typeof csrf === 'string' ? csrf : null))
      return replies.formExpired(c, '/settings')
    const file = form?.get('file')
    if (!file || typeof file === 'string' || file.size === 0)
      return settings(c, 400, { importError: 'Choose a file to import.' })
    try {
      const started = await startImport(deps, sessionPrincipal(c.session), {
        bytes: new Uint8Array(await file.arrayBuffer()),
        format: null,
        contentType: file.type || null,
      })
      return redirect(c, `/settings/imports/${started.id}`)
    } catch (error) {
      if (error instanceof ImportFormatError)
        return settings(c, 400, { importError: `Nothing was imported: ${error.message}.` })
      if (error instanceof RateLimitExceededError)
        return settings(c, 429, { importError: `Nothing was imported: ${error.message}.` })
      throw error
    }
  }

  const showImport = async (c: SignedIn & WithId) => {
    const job = await importOf(deps, sessionPrincipal(c.session), c.params.id)
    if (!job)
      return message(c, 404, 'No such import', 'There is no import with this address in your account.', {
        href: '/settings',
        label: 'Back to settings',
      })
    const running = job.status !== 'done' && job.status !== 'failed'
    return page(c, 200, 'Import', importProgressPage(job), running ? { refreshSeconds: 1 } : {})
  }

  // Every format, and for `epub` the folder and read state (the queue's "Download EPUB" comes here too).
  const downloadExport = async (c: SignedIn) => {
    const params = new URL(c.request.url).searchParams
    return exportDownload(
      deps,
      sessionPrincipal(c.session),
      exportRequestOf({ format: params.get('format'), folder: params.get('folder'), state: params.get('state') }),
    )
  }

  const showSettings = (c: SignedIn) =>
    settings(c, 200, { notice: NOTICES[new URL(c.request.url).searchParams.get('done') ?? ''] ?? null })

  const createKey = async (c: SignedInForm) => {
    const label = (c.form.get('label') ?? '').trim()
    const scopes = [...new Set(c.form.getAll('scope'))]
    const labelProblem = keyLabelProblem(label)
    const error = labelProblem
      ? `${labelProblem.charAt(0).toUpperCase()}${labelProblem.slice(1)}.`
      : scopes.length === 0
        ? 'Choose at least one scope.'
        : !scopes.every(isScope)
          ? 'Choose scopes from the list.'
          : null
    if (error) return settings(c, 422, { form: { label, scopes, error } })
    const { key } = (await issueApiKey(deps, {
      userId: c.session.userId,
      label,
      scopes: scopes.filter(isScope),
    }))!
    // Rendered in this response only: the database keeps the hash, and no flash or log ever holds the key.
    return settings(c, 201, { newKey: { key, label } })
  }

  const revokeKey = async (c: SignedInForm & WithId) => {
    if (!(await revokeApiKey(deps, c.session.userId, c.params.id)))
      return message(c, 404, 'No such key', 'There is no active API key with that id.', {
        href: '/settings',
        label: 'Back to settings',
      })
    return redirect(c, '/settings?done=key-revoked')
  }

  const revokeAgent = async (c: SignedInForm & { params: { grantId: string } }) => {
    if (!(await revokeConsent(deps, c.session.userId, c.params.grantId)))
      return message(c, 404, 'No such agent', 'There is no connected agent with that id.', {
        href: '/settings',
        label: 'Back to settings',
      })
    return redirect(c, '/settings?done=agent-revoked')
  }

  const signedInForm = { ...formRoute, signedIn: true } as const
  return (
    new Elysia()
      .use(guard)
      .get('/settings', showSettings, { ...hidden, signedIn: true })
      .post('/settings/api-keys', createKey, signedInForm)
      .post('/settings/api-keys/:id/revoke', revokeKey, { ...signedInForm, ...idParam })
      .post('/settings/agents/:grantId/revoke', revokeAgent, { ...signedInForm, ...grantIdParam })
      .post('/settings/sessions/sign-out-others', signOutOthers, signedInForm)
      // A multipart form, whose CSRF field the handler checks once it has read it (after the sign-in check).
      .post('/settings/import', uploadImport, { ...hidden, parse: 'none', signedIn: true })
      .get('/settings/imports/:id', showImport, { ...hidden, ...idParam, signedIn: true })
      .get('/settings/export', downloadExport, { ...hidden, signedIn: true })
      .post('/settings/delete-account', deleteOwnAccount, signedInForm)
  )
}
