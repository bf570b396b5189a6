import { Elysia } from 'elysia'
import { ValidationError, WebhookNotFoundError } from '../../../core/errors.ts'
import { createWebhook, removeWebhook, testWebhook } from '../../app/webhooks.ts'
import { formRoute, idParam, type SignedInVisit, type Visit, type WebKit, type WithId } from './kit.ts'
import { sessionPrincipal } from './reader.ts'
import { settingsRenderer } from './settings-routes.ts'

/**
 * Settings' webhook forms (docs/web.md#webhooks): add one, send it a test, delete it. They go through the
 * same app functions as the REST API (docs/webhooks.md#api), so the URL rules, the address check and the
 * per-person limit are the API's, and the answer is the settings page, as for every other settings form.
 */
export function webhookSettingsRoutes(kit: WebKit) {
  const { deps, redirect, message, posted, signedIn } = kit
  const settings = settingsRenderer(kit)

  // Another person's webhook is answered exactly like one that never existed, as for API keys.
  const noSuchWebhook = (visit: Visit) =>
    message(visit, 404, 'No such webhook', 'There is no webhook with that id.', {
      href: '/settings',
      label: 'Back to settings',
    })

  const ownWebhook = (action: (visit: SignedInVisit, id: string) => Promise<Response>) => (visit: Visit, id: string) =>
    signedIn(async (visit) => {
      try {
        return await action(visit, id)
      } catch (error) {
        if (error instanceof WebhookNotFoundError) return noSuchWebhook(visit)
        throw error
      }
    })(visit)

  const add = (visit: Visit, form: URLSearchParams) =>
    signedIn(async (visit) => {
      const url = (form.get('url') ?? '').trim()
      const events = [...new Set(form.getAll('event'))]
      try {
        const { webhook, secret } = await createWebhook(deps, sessionPrincipal(visit.session), { url, events })
        // Rendered in this response only: no redirect, flash or log ever carries the secret.
        return settings(visit, 201, { webhookState: { created: { url: webhook.url, secret } } })
      } catch (error) {
        if (!(error instanceof ValidationError)) throw error
        const reason = error.message.replace(/\.$/, '')
        return settings(visit, 422, { webhookState: { form: { url, events, error: `Nothing was added: ${reason}.` } } })
      }
    })(visit)

  // The outcome is shown on the page rather than behind a redirect: it is this one attempt's, and the test
  // row in the deliveries below stays for later.
  const sendTest = ownWebhook(async (visit, id) => {
    const { delivery } = await testWebhook(deps, sessionPrincipal(visit.session), id)
    return settings(visit, 200, { webhookState: { tested: { webhookId: id, delivery } } })
  })

  const remove = ownWebhook(async (visit, id) => {
    await removeWebhook(deps, sessionPrincipal(visit.session), id)
    return redirect(visit, '/settings?done=webhook-deleted')
  })

  return new Elysia()
    .post('/settings/webhooks', posted(add), formRoute)
    .post(
      '/settings/webhooks/:id/test',
      posted((visit, _, { params }: WithId) => sendTest(visit, params.id)),
      { ...formRoute, ...idParam },
    )
    .post(
      '/settings/webhooks/:id/delete',
      posted((visit, _, { params }: WithId) => remove(visit, params.id)),
      { ...formRoute, ...idParam },
    )
}
