import type { Clock } from '../../core/types.ts'
import type { Config } from '../config.ts'
import type { Log } from '../app/deps.ts'
import { webhookUserAgent } from '../app/webhooks.ts'
import type { Database } from '../storage/open-database.ts'
import { startDeliveryWorkers, type DeliveryWorkers } from './webhook-worker.ts'

/**
 * Starts this process's webhook senders as configured: none with WEBHOOKS=off (messages wait in the outbox
 * for a process that sends). ENRICH_ALLOW_PRIVATE=1 lifts the address guard for them too.
 */
export function startWebhookDelivery(deps: {
  db: Database
  config: Config
  clock: Clock
  log: Log
}): DeliveryWorkers | null {
  const { config, log } = deps
  if (!config.webhookDelivery) {
    log('info', { msg: 'webhook delivery off (WEBHOOKS=off): messages wait in the outbox' })
    return null
  }
  return startDeliveryWorkers({
    db: deps.db,
    clock: deps.clock,
    log,
    encryptionKey: config.encryptionKey,
    send: { allowPrivate: config.enrichAllowPrivate, userAgent: webhookUserAgent(config.baseUrl) },
  })
}
