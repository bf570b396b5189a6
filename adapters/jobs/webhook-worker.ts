import { afterFailedAttempt, DELIVERY_LEASE_MS, DISABLE_AFTER_FAILURES } from '../../core/webhooks/retry-schedule.ts'
import type { Clock } from '../../core/types.ts'
import { type ClaimLoop, startClaimLoop } from './claim-loop.ts'
import type { Log } from '../app/deps.ts'
import type { Database } from '../storage/open-database.ts'
import {
  claimDelivery,
  markDelivered,
  markDeliveryFailed,
  scheduleDeliveryRetry,
  type ClaimedDelivery,
  fixBody,
} from '../storage/webhooks.ts'
import { findSavedItem } from '../storage/saved-items.ts'
import { findHighlight } from '../storage/highlights.ts'
import { toSavedItemDto } from '../../core/items/saved-item-dto.ts'
import { toHighlightDto } from '../../core/highlights/highlight.ts'
import { openSecret } from '../app/webhook-secrets.ts'
import { sendMessage, type SendOptions } from '../webhooks/send.ts'

export interface DeliveryWorkerDeps {
  db: Database
  clock: Clock
  log: Log
  send: SendOptions
  encryptionKey: string | undefined
}

export interface DeliveryWorkerOptions {
  /** Attempts in flight at once, per process. */
  concurrency: number
  /** Attempts in flight at once per webhook, over every process: a hanging receiver holds no more. */
  perWebhook: number
  /** How often an idle worker looks for due messages. */
  pollMs: number
}

export const DEFAULT_DELIVERY_OPTIONS: DeliveryWorkerOptions = { concurrency: 8, perWebhook: 4, pollMs: 200 }

export type DeliveryWorkers = ClaimLoop

/**
 * Sends webhook messages from the database's outbox in this process: claims due messages with a lease (so
 * any number of processes share one outbox and each attempt is made once), at most `concurrency` at a time.
 */
export function startDeliveryWorkers(
  deps: DeliveryWorkerDeps,
  options: DeliveryWorkerOptions = DEFAULT_DELIVERY_OPTIONS,
): DeliveryWorkers {
  return startClaimLoop({
    claim: () => {
      const nowMs = deps.clock.now().getTime()
      return claimDelivery(deps.db, nowMs, nowMs + DELIVERY_LEASE_MS, options.perWebhook)
    },
    run: (claim) => deliverOnce(deps, claim),
    concurrency: options.concurrency,
    pollMs: options.pollMs,
    // A finished attempt may let the next message about the same item go.
    busy: { pollMs: Math.min(options.pollMs, 50), wakeOnFinish: true },
    onClaimError: (error) =>
      deps.log('warn', { msg: 'webhook outbox unavailable', error: error instanceof Error ? error.name : 'unknown' }),
  })
}

/**
 * The body of a message about an item or a highlight at its first attempt: the item (or highlight) as it is
 * now, in its wire shape (docs/webhooks.md#events), under the event's type and the time of the change.
 * Written to the outbox, so every later attempt sends the same bytes; a delete that came first has written
 * the item (or highlight) as it was.
 */
async function firstBody(db: Database, claim: ClaimedDelivery): Promise<string | null> {
  const data = await currentData(db, claim)
  const body = data
    ? JSON.stringify({ type: claim.type, timestamp: new Date(claim.createdAtMs).toISOString(), data })
    : null
  return fixBody(db, claim.seq, body)
}

/** What a message's `data` holds, read now: `{ savedItem }` or `{ highlight }`; null when it is gone. */
async function currentData(
  db: Database,
  claim: ClaimedDelivery,
): Promise<{ savedItem: unknown } | { highlight: unknown } | null> {
  if (claim.type.startsWith('highlight.')) {
    const highlight = await findHighlight(db, claim.userId, claim.entityId)
    return highlight ? { highlight: toHighlightDto(highlight) } : null
  }
  const item = await findSavedItem(db, claim.userId, claim.entityId)
  return item ? { savedItem: toSavedItemDto(item) } : null
}

/** One attempt of a claimed message, and its outcome stored. Never throws. */
export async function deliverOnce(deps: DeliveryWorkerDeps, claim: ClaimedDelivery): Promise<void> {
  const started = performance.now()
  try {
    const body = claim.body ?? (await firstBody(deps.db, claim))
    if (body === null) {
      // Cannot happen while deleting an item or a highlight writes its messages' bodies; never sent without one.
      await markDeliveryFailed(
        deps.db,
        claim,
        {
          responseStatus: null,
          error: claim.type.startsWith('highlight.') ? 'the highlight is gone' : 'the item is gone',
        },
        deps.clock.now().getTime(),
        DISABLE_AFTER_FAILURES,
      )
      return
    }
    const secret = await openSecret(claim.secret, deps.encryptionKey)
    const outcome = await sendMessage({ id: claim.id, url: claim.url, body, secret }, deps.clock.now(), deps.send)
    const nowMs = deps.clock.now().getTime()
    const base = { msg: 'webhook', webhookId: claim.webhookId, messageId: claim.id, attempts: claim.attempts }
    const ms = Math.round(performance.now() - started)
    if (outcome.delivered) {
      await markDelivered(deps.db, claim, outcome.responseStatus, nowMs)
      deps.log('info', { ...base, outcome: 'delivered', status: outcome.responseStatus, ms })
      return
    }
    const next = afterFailedAttempt(claim.attempts, nowMs, outcome.refused)
    if (next.kind === 'retry') {
      await scheduleDeliveryRetry(deps.db, claim, outcome, next.runAfterMs, nowMs)
      deps.log('info', { ...base, outcome: 'retry', status: outcome.responseStatus, reason: outcome.error, ms })
      return
    }
    const disabled = await markDeliveryFailed(deps.db, claim, outcome, nowMs, DISABLE_AFTER_FAILURES)
    deps.log('warn', { ...base, outcome: 'failed', status: outcome.responseStatus, reason: outcome.error, ms })
    if (disabled) {
      deps.log('warn', {
        msg: 'webhook disabled',
        webhookId: claim.webhookId,
        reason: `${DISABLE_AFTER_FAILURES} failed deliveries in a row`,
      })
    }
  } catch (error) {
    // The lease runs out and another attempt follows; nothing else to do here.
    deps.log('error', {
      msg: 'webhook attempt not stored',
      webhookId: claim.webhookId,
      error: error instanceof Error ? error.name : 'unknown',
    })
  }
}
