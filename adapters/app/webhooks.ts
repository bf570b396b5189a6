import { ValidationError, WebhookNotFoundError } from '../../core/errors.ts'
import { uuidv7 } from '../../core/ids.ts'
import { encodeHexLowerCase } from '@oslojs/encoding'
import type { Principal } from '../../core/types.ts'
import { MAX_WEBHOOKS_PER_PERSON, parseWebhookEvents, parseWebhookUrl, TEST_EVENT } from '../../core/webhooks/events.ts'
import { DELIVERY_LEASE_MS } from '../../core/webhooks/retry-schedule.ts'
import {
  type DeliveryRecord,
  deleteWebhook,
  deliveryQueueOf,
  findDelivery,
  findWebhook,
  insertTestDelivery,
  insertWebhook,
  listWebhooks,
  recentDeliveries,
  settleTestDelivery,
  type WebhookRecord,
} from '../storage/webhooks.ts'
import { newWebhookSecret, openSecret, sealSecret } from './webhook-secrets.ts'
import type { AppDeps, WebhookTargets } from './deps.ts'
import type { Database } from '../storage/open-database.ts'

/** Deliveries the API and settings show per webhook. */
export const RECENT_DELIVERIES = 20

export function webhookDto(webhook: WebhookRecord) {
  return {
    id: webhook.id,
    url: webhook.url,
    events: webhook.events,
    createdAt: webhook.createdAt,
    disabledAt: webhook.disabledAt,
  }
}
export type WebhookDto = ReturnType<typeof webhookDto>

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())

export function deliveryDto(delivery: DeliveryRecord) {
  return {
    id: delivery.id,
    type: delivery.type,
    status: delivery.status,
    attempts: delivery.attempts,
    createdAt: new Date(delivery.createdAtMs).toISOString(),
    lastAttemptAt: iso(delivery.lastAttemptAtMs),
    nextAttemptAt: iso(delivery.nextAttemptAtMs),
    responseStatus: delivery.responseStatus,
    error: delivery.lastError,
  }
}
export type DeliveryDto = ReturnType<typeof deliveryDto>

function targetsOf(deps: AppDeps): WebhookTargets {
  if (!deps.webhookTargets) throw new Error('AppDeps.webhookTargets is not set (createServer sets it)')
  return deps.webhookTargets
}

/**
 * Creates a webhook (docs/webhooks.md#api): the URL checked, the events known, at most 10 per person. The
 * secret is returned here once and never again.
 */
export async function createWebhook(deps: AppDeps, principal: Principal, input: { url: string; events: string[] }) {
  const url = parseWebhookUrl(input.url)
  targetsOf(deps).check(url, deps.config.enrichAllowPrivate)
  const events = parseWebhookEvents(input.events)
  const now = deps.clock.now()
  const secret = newWebhookSecret(deps.random)
  const webhook: WebhookRecord = {
    id: uuidv7(now.getTime(), deps.random),
    userId: principal.userId,
    url: url.href,
    events,
    secret: await sealSecret(secret, deps.config.encryptionKey),
    createdAt: now.toISOString(),
    disabledAt: null,
  }
  if (!(await insertWebhook(deps.db, webhook, MAX_WEBHOOKS_PER_PERSON))) {
    throw new ValidationError(`You already have ${MAX_WEBHOOKS_PER_PERSON} webhooks, the limit; delete one first`)
  }
  return { webhook: webhookDto(webhook), secret }
}

export async function webhooksOf(deps: AppDeps, principal: Principal) {
  return { webhooks: (await listWebhooks(deps.db, principal.userId)).map(webhookDto) }
}

async function ownWebhook(deps: AppDeps, principal: Principal, id: string): Promise<WebhookRecord> {
  const webhook = await findWebhook(deps.db, principal.userId, id)
  if (!webhook) throw new WebhookNotFoundError(id)
  return webhook
}

export async function removeWebhook(deps: AppDeps, principal: Principal, id: string): Promise<void> {
  if (!(await deleteWebhook(deps.db, principal.userId, id))) throw new WebhookNotFoundError(id)
}

/** The person's webhooks (oldest first), each with its messages waiting and its last settled delivery (the admin CLI). */
export async function webhookQueues(deps: { db: Database }, userId: string) {
  const webhooks = await listWebhooks(deps.db, userId)
  const queues = []
  for (const webhook of webhooks) queues.push({ webhook, ...(await deliveryQueueOf(deps.db, webhook.id)) })
  return queues
}

/** Deletes one of the person's webhooks and its waiting messages; false when they have none with that id (the admin CLI). */
export function deleteWebhookOf(deps: { db: Database }, userId: string, id: string): Promise<boolean> {
  return deleteWebhook(deps.db, userId, id)
}

export async function deliveriesOf(deps: AppDeps, principal: Principal, id: string) {
  const webhook = await ownWebhook(deps, principal, id)
  return { deliveries: (await recentDeliveries(deps.db, webhook.id, RECENT_DELIVERIES)).map(deliveryDto) }
}

/**
 * Sends a `webhook.test` message now, signed like any other, and answers with how it went (docs/webhooks.md#api).
 * One attempt, no retries; it shows in the webhook's deliveries and never counts toward disabling it. A
 * disabled webhook can be tested too.
 */
export async function testWebhook(deps: AppDeps, principal: Principal, id: string) {
  const webhook = await ownWebhook(deps, principal, id)
  const now = deps.clock.now()
  const messageId = `msg_${encodeHexLowerCase(deps.random.fill(new Uint8Array(16)))}`
  const body = JSON.stringify({
    type: TEST_EVENT,
    timestamp: now.toISOString(),
    data: { webhook: webhookDto(webhook) },
  })
  const claim = await insertTestDelivery(
    deps.db,
    webhook,
    { id: messageId, type: TEST_EVENT, body },
    now.getTime(),
    now.getTime() + DELIVERY_LEASE_MS,
  )
  const secret = await openSecret(webhook.secret, deps.config.encryptionKey)
  const outcome = await targetsOf(deps).send({ id: claim.id, url: claim.url, body, secret }, now, {
    allowPrivate: deps.config.enrichAllowPrivate,
    userAgent: webhookUserAgent(deps.config.baseUrl),
  })
  await settleTestDelivery(
    deps.db,
    claim,
    outcome.delivered
      ? { delivered: true, responseStatus: outcome.responseStatus, error: null }
      : { delivered: false, responseStatus: outcome.responseStatus, error: outcome.error },
    deps.clock.now().getTime(),
  )
  const delivery = await findDelivery(deps.db, claim.seq)
  return { delivery: deliveryDto(delivery!) }
}

/** The User-Agent of webhook requests, naming the instance so a receiver can tell who calls. */
export function webhookUserAgent(baseUrl: string): string {
  return `Readlater-Webhooks/1.0 (+${baseUrl})`
}
