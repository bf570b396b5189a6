import { Elysia } from 'elysia'
import { ValidationError, WebhookNotFoundError } from '../../../core/errors.ts'
import { createWebhook, removeWebhook, testWebhook } from '../../app/webhooks.ts'
import type { RouteContext } from '../route-context.ts'
import { pageReplies, type SignedInForm } from './page-replies.ts'
import { formRoute, idParam, type WithId } from './route-options.ts'
import { sessionPrincipal } from './reader.ts'
import { settingsRenderer } from './settings-routes.ts'

/**
 * Settings' webhook forms (docs/web.md#webhooks): add one, send it a test, delete it. They go through the
 * same app functions as the REST API (docs/webhooks.md#api), so the URL rules, the address check and the
 * per-person limit are the API's, and the answer is the settings page, as for every other settings form.
 */
export function webhookSettingsRoutes({ deps, guard }: RouteContext) {
  const replies = pageReplies(deps.config)
  const { redirect, message } = replies
  const settings = settingsRenderer(deps, replies)

  // Another person's webhook is answered exactly like one that never existed, as for API keys.
  const noSuchWebhook = (c: SignedInForm) =>
    message(c, 404, 'No such webhook', 'There is no webhook with that id.', {
      href: '/settings',
      label: 'Back to settings',
    })

  const ownWebhook =
    (action: (c: SignedInForm, id: string) => Promise<Response>) =>
    async (c: SignedInForm & WithId): Promise<Response> => {
      try {
        return await action(c, c.params.id)
      } catch (error) {
        if (error instanceof WebhookNotFoundError) return noSuchWebhook(c)
        throw error
      }
    }

  const add = async (c: SignedInForm) => {
    const url = (c.form.get('url') ?? '').trim()
    const events = [...new Set(c.form.getAll('event'))]
    try {
      const { webhook, secret } = await createWebhook(deps, sessionPrincipal(c.session), { url, events })
      // Rendered in this response only: no redirect, flash or log ever carries the secret.
      return settings(c, 201, { webhookState: { created: { url: webhook.url, secret } } })
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error
      const reason = error.message.replace(/\.$/, '')
      return settings(c, 422, { webhookState: { form: { url, events, error: `Nothing was added: ${reason}.` } } })
    }
  }

  // The outcome is shown on the page rather than behind a redirect: it is this one attempt's, and the test
  // row in the deliveries below stays for later.
  const sendTest = ownWebhook(async (c, id) => {
    const { delivery } = await testWebhook(deps, sessionPrincipal(c.session), id)
    return settings(c, 200, { webhookState: { tested: { webhookId: id, delivery } } })
  })

  const remove = ownWebhook(async (c, id) => {
    await removeWebhook(deps, sessionPrincipal(c.session), id)
    return redirect(c, '/settings?done=webhook-deleted')
  })

  const signedInForm = { ...formRoute, signedIn: true } as const
  return new Elysia()
    .use(guard)
    .post('/settings/webhooks', add, signedInForm)
    .post('/settings/webhooks/:id/test', sendTest, { ...signedInForm, ...idParam })
    .post('/settings/webhooks/:id/delete', remove, { ...signedInForm, ...idParam })
}
