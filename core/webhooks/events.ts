import { ValidationError } from '../errors.ts'

/** What a webhook can subscribe to (docs/webhooks.md#events). */
export const WEBHOOK_EVENTS = [
  'saved_item.created',
  'saved_item.updated',
  'saved_item.deleted',
  'saved_item.enriched',
  'folder.created',
  'folder.updated',
  'folder.deleted',
  'highlight.created',
  'highlight.updated',
  'highlight.deleted',
] as const
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number]

/** The type of the message `POST /v1/webhooks/{id}/test` sends; not subscribable. */
export const TEST_EVENT = 'webhook.test'

/** Webhooks one person may have at once (docs/webhooks.md#api). */
export const MAX_WEBHOOKS_PER_PERSON = 10
export const MAX_WEBHOOK_URL_LENGTH = 2048

const KNOWN: ReadonlySet<string> = new Set(WEBHOOK_EVENTS)

export function isWebhookEvent(value: string): value is WebhookEvent {
  return KNOWN.has(value)
}

/**
 * The events of a new webhook: at least one, each a known type, duplicates dropped, in the order of
 * {@link WEBHOOK_EVENTS} (so equal subscriptions print equally). Throws {@link ValidationError}.
 */
export function parseWebhookEvents(events: readonly string[]): WebhookEvent[] {
  if (events.length === 0) throw new ValidationError('events must name at least one event type')
  const unknown = events.filter((event) => !isWebhookEvent(event))
  if (unknown.length > 0) {
    throw new ValidationError(
      `Unknown event type ${unknown.map((e) => JSON.stringify(e.slice(0, 40))).join(', ')}; known: ${WEBHOOK_EVENTS.join(', ')}`,
    )
  }
  const wanted = new Set(events)
  return WEBHOOK_EVENTS.filter((event) => wanted.has(event))
}

/**
 * The target of a new webhook: an absolute http(s) URL, at most 2,048 characters, without credentials or
 * fragment. Whether its address may be reached is the adapter's check (the address guard), at creation for
 * IP literals and at every attempt for names. Throws {@link ValidationError}.
 */
export function parseWebhookUrl(raw: string): URL {
  if (raw.length > MAX_WEBHOOK_URL_LENGTH) {
    throw new ValidationError(`url is ${raw.length} characters long, the limit is ${MAX_WEBHOOK_URL_LENGTH}`)
  }
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new ValidationError('url must be an absolute http or https URL')
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ValidationError(`url must be http or https, not ${url.protocol.slice(0, 20)}`)
  }
  if (url.username !== '' || url.password !== '') {
    throw new ValidationError('url must not carry a user name or password; put a token in the path or query')
  }
  if (url.hash !== '' || raw.includes('#')) throw new ValidationError('url must not have a fragment')
  return url
}
