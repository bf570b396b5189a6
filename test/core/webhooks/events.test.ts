import { test } from 'node:test'
import assert from 'node:assert/strict'
import { ValidationError } from '../../../core/errors.ts'
import { parseWebhookEvents, parseWebhookUrl, WEBHOOK_EVENTS } from '../../../core/webhooks/events.ts'

// docs/webhooks.md#api: what a new webhook may subscribe to, and where it may point.

test('events come back known, without duplicates, in canonical order', () => {
  assert.deepEqual(parseWebhookEvents(['folder.deleted', 'saved_item.created', 'folder.deleted']), [
    'saved_item.created',
    'folder.deleted',
  ])
  assert.deepEqual(parseWebhookEvents([...WEBHOOK_EVENTS].reverse()), [...WEBHOOK_EVENTS])
})

test('the events of docs/webhooks.md#events, highlights last', () => {
  assert.deepEqual(WEBHOOK_EVENTS, [
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
  ])
  assert.deepEqual(parseWebhookEvents(['highlight.deleted', 'highlight.created']), [
    'highlight.created',
    'highlight.deleted',
  ])
})

test('no events, or an unknown one, is a ValidationError naming it', () => {
  assert.throws(
    () => parseWebhookEvents([]),
    (e: unknown) => e instanceof ValidationError && /at least one/.test(e.message),
  )
  assert.throws(
    () => parseWebhookEvents(['saved_item.created', 'saved_item.exploded']),
    (e: unknown) => e instanceof ValidationError && e.message.includes('"saved_item.exploded"'),
  )
  // The test message's type is sent, never subscribed to.
  assert.throws(() => parseWebhookEvents(['webhook.test']), ValidationError)
})

test('a URL must be absolute http(s), without credentials or fragment, at most 2,048 characters', () => {
  assert.equal(parseWebhookUrl('https://hooks.example.com/in?token=abc').href, 'https://hooks.example.com/in?token=abc')
  assert.equal(parseWebhookUrl('http://hooks.example.com').href, 'http://hooks.example.com/')
  for (const [raw, why] of [
    ['/relative', /absolute/],
    ['ftp://hooks.example.com/', /http or https/],
    ['javascript:alert(1)', /http or https/],
    ['https://user:pw@hooks.example.com/', /user name or password/],
    ['https://hooks.example.com/#frag', /fragment/],
    [`https://hooks.example.com/${'a'.repeat(2048)}`, /2048/],
  ] as const) {
    assert.throws(
      () => parseWebhookUrl(raw),
      (e: unknown) => e instanceof ValidationError && why.test(e.message),
      raw,
    )
  }
})
