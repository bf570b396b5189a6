import { Elysia, t } from 'elysia'
import { isScope } from '../../../core/auth/scopes.ts'
import { ImportFormatError, PayloadTooLargeError, RateLimitExceededError } from '../../../core/errors.ts'
import { deleteAccountWithPassword } from '../../app/accounts.ts'
import { issueApiKey, keyLabelProblem, revokeKey as revokeApiKey } from '../../app/api-keys.ts'
import { revokeConsent } from '../../app/oauth-consent.ts'
import { sessionPrincipal } from './reader.ts'
import { settingsPage, type SettingsView } from './pages/settings.ts'
import { importProgressPage } from './pages/import-export.ts'
import { importOf, startImport } from '../../app/imports.ts'
import { exportDownload, exportFormatOf } from '../../app/export.ts'
import { IMPORT_MAX_BYTES } from '../../../core/import/types.ts'
import { readBodyCapped } from '../body.ts'
import { isValidCsrf, type WebSession } from '../browser-session.ts'
import { invalidateUserSessions } from '../../app/web-sessions.ts'
import { bookmarklet } from './pages/save.ts'
import { formRoute, hidden, idParam, type PageContext, type Visit, type WebKit, type WithId } from './kit.ts'
import { readSettings } from '../../app/settings-view.ts'

/**
 * The settings page with what it lists loaded, and `extra` (what a form just did) on top: every settings
 * form answers with it, so a refused form comes back in place with the rest of the page as it stands.
 */
export function settingsRenderer(kit: WebKit) {
  const { deps, page } = kit
  return async function settings(
    visit: Visit & { session: WebSession },
    status: number,
    extra: Partial<SettingsView> = {},
  ): Promise<Response> {
    const view = await readSettings(deps, sessionPrincipal(visit.session))
    return page(
      visit,
      status,
      'Settings',
      settingsPage({
        csrf: visit.csrf,
        email: visit.session.email,
        keys: view.keys,
        agents: view.agents,
        issuedBy: view.issuedBy,
        signupAttemptedAt: view.signupAttemptedAt,
        imports: view.imports,
        bookmarklet: bookmarklet(deps.config.appUrl),
        webhooks: view.webhooks,
        ...extra,
      }),
    )
  }
}

/**
 * Settings: API keys, connected agents, sessions, import and export, deleting the account (docs/web.md#pages);
 * webhooks are in webhook-routes.ts.
 */
export function settingsRoutes(kit: WebKit) {
  const { deps, secure, page, redirect, message, sessionCookie, run, posted, signedIn, rotateCsrf } = kit
  const settings = settingsRenderer(kit)

  const NOTICES: Record<string, string> = {
    'key-revoked': 'API key revoked. It no longer works, nor do the keys issued through it.',
    'agent-revoked': 'Agent disconnected. Its tokens no longer work, nor do the keys issued through it.',
    'signed-out-others': 'Every other session is signed out.',
    'webhook-deleted': 'Webhook deleted. Nothing more is sent to it, and its waiting messages are dropped.',
  }

  const signOutOthers = (visit: Visit) =>
    signedIn(async (visit) => {
      const ended = await invalidateUserSessions(deps, visit.session.userId, { except: visit.session.tokenHash })
      deps.log('info', { msg: 'other sessions signed out', userId: visit.session.userId, ended })
      return redirect(visit, '/settings?done=signed-out-others')
    })(visit)

  const deleteOwnAccount = (visit: Visit, form: URLSearchParams) =>
    signedIn(async (visit) => {
      const userId = visit.session.userId
      if (!(await deleteAccountWithPassword(deps, userId, form.get('password') ?? ''))) {
        return settings(visit, 403, { deleteError: 'That is not your password. Nothing was deleted.' })
      }
      deps.log('info', { msg: 'account deleted', userId, via: 'web' })
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

  // ── Import and export (docs/import-export.md#web) ──────────────────────────────────────────

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
      if (error instanceof RateLimitExceededError)
        return settings(visit, 429, { importError: `Nothing was imported: ${error.message}.` })
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
      if (!(await revokeApiKey(deps, visit.session.userId, id)))
        return message(visit, 404, 'No such key', 'There is no active API key with that id.', {
          href: '/settings',
          label: 'Back to settings',
        })
      return redirect(visit, '/settings?done=key-revoked')
    })(visit)

  const revokeAgent = (visit: Visit, grantId: string) =>
    signedIn(async (visit) => {
      if (!(await revokeConsent(deps, visit.session.userId, grantId)))
        return message(visit, 404, 'No such agent', 'There is no connected agent with that id.', {
          href: '/settings',
          label: 'Back to settings',
        })
      return redirect(visit, '/settings?done=agent-revoked')
    })(visit)

  return new Elysia()
    .get('/settings', run(showSettings), hidden)
    .post('/settings/api-keys', posted(createKey), formRoute)
    .post(
      '/settings/api-keys/:id/revoke',
      posted((visit, _, { params }: WithId) => revokeKey(visit, params.id)),
      { ...formRoute, ...idParam },
    )
    .post(
      '/settings/agents/:grantId/revoke',
      posted((visit, _, { params }: PageContext & { params: { grantId: string } }) =>
        revokeAgent(visit, params.grantId),
      ),
      {
        ...formRoute,
        params: t.Object({ grantId: t.String() }),
        transform({ params }: { params: Record<string, unknown> }) {
          if (typeof params.grantId !== 'string') params.grantId = ''
        },
      },
    )
    .post('/settings/sessions/sign-out-others', posted(signOutOthers), formRoute)
    .post('/settings/import', run(uploadImport), formRoute)
    .get(
      '/settings/imports/:id',
      run((visit, { params }: WithId) => showImport(visit, params.id)),
      { ...hidden, ...idParam },
    )
    .get('/settings/export', run(downloadExport), hidden)
    .post('/settings/delete-account', posted(deleteOwnAccount), formRoute)
}
