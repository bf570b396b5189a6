import { Elysia, t } from 'elysia'
import { createWebhook, deliveriesOf, removeWebhook, testWebhook, webhooksOf } from '../../app/webhooks.ts'
import { REPLAY_WITHOUT_HEADER } from '../idempotency.ts'
import type { RouteContext } from '../route-context.ts'
import {
  commonAuthedErrors,
  commonWriteErrors,
  Errors,
  IdParams,
  WebhookCreated,
  WebhookCreateRequest,
  WebhookDeliveryList,
  WebhookList,
  WebhookTestResult,
} from '../schemas.ts'

const tags = ['Webhooks']
const notFound = { 404: Errors.WebhookNotFoundError }

const CREATE = [
  'Subscribes a URL to events of your library. Each message is a POST signed per the Standard Webhooks specification (`webhook-id`, `webhook-timestamp`, `webhook-signature`), retried after 5 s, 5 min, 30 min, 2 h, 5 h and 10 h, then failed; 20 failed deliveries in a row disable the webhook.',
  'The answer carries the signing `secret` this once. A retry with the same `Idempotency-Key` replays the same webhook (201, `Idempotent-Replayed: true`) with `secret` null: a secret is never kept for replay, so whoever lost the first answer deletes the webhook and creates it again. The URL must be http(s) on port 80 or 443 and reach a public address; at most 10 webhooks per person. Problems are 400 ValidationError.',
].join(' ')

export const webhookRoutes = ({ deps, guard }: RouteContext) =>
  new Elysia()
    .use(guard)
    .post(
      '/v1/webhooks',
      async ({ body, principal, set }) => {
        const created = await createWebhook(deps, principal, body)
        set.status = 201
        // Kept for an Idempotency-Key replay without the secret (docs/webhooks.md#api).
        set.headers[REPLAY_WITHOUT_HEADER] = 'secret'
        set.headers['cache-control'] = 'no-store'
        return created
      },
      {
        body: WebhookCreateRequest,
        response: { 201: WebhookCreated, ...commonAuthedErrors, ...commonWriteErrors, 400: Errors.ValidationError },
        auth: 'webhooks:manage',
        detail: { summary: 'Create a webhook', description: CREATE, tags },
      },
    )
    .get('/v1/webhooks', ({ principal }) => webhooksOf(deps, principal), {
      response: { 200: WebhookList, ...commonAuthedErrors },
      auth: 'webhooks:manage',
      detail: { summary: 'List your webhooks, oldest first (never their secrets)', tags },
    })
    .delete(
      '/v1/webhooks/:id',
      async ({ params, principal, set }) => {
        await removeWebhook(deps, principal, params.id)
        set.status = 204
      },
      {
        params: IdParams,
        response: {
          204: t.Void({ description: 'Deleted, with its waiting messages' }),
          ...commonAuthedErrors,
          ...commonWriteErrors,
          ...notFound,
        },
        auth: 'webhooks:manage',
        detail: { summary: 'Delete a webhook; its waiting messages are dropped', tags },
      },
    )
    .post('/v1/webhooks/:id/test', ({ params, principal }) => testWebhook(deps, principal, params.id), {
      params: IdParams,
      response: { 200: WebhookTestResult, ...commonAuthedErrors, ...commonWriteErrors, ...notFound },
      auth: 'webhooks:manage',
      detail: {
        summary: 'Send a signed `webhook.test` message now',
        description:
          'One attempt, no retries, answered with its outcome (`delivered` or `failed`, the receiver’s status or why it failed). It shows in the deliveries and never counts toward disabling the webhook; a disabled webhook can be tested too.',
        tags,
      },
    })
    .get('/v1/webhooks/:id/deliveries', ({ params, principal }) => deliveriesOf(deps, principal, params.id), {
      params: IdParams,
      response: { 200: WebhookDeliveryList, ...commonAuthedErrors, ...notFound },
      auth: 'webhooks:manage',
      detail: { summary: "The webhook's 20 newest messages and where each stands, newest first", tags },
    })
