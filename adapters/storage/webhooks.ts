import type { WebhookEvent } from '../../core/webhooks/events.ts'
import type { Database } from './open-database.ts'
import { runProgram } from './program.ts'
import { readRows as rows } from './read-rows.ts'

/** A webhook as stored (docs/webhooks.md#api); `secret` as stored (maybe encrypted), never sent out. */
export interface WebhookRecord {
  id: string
  userId: string
  url: string
  events: WebhookEvent[]
  secret: string
  createdAt: string
  disabledAt: string | null
}

/** One message to one webhook and where it stands (docs/webhooks.md#delivery). */
export interface DeliveryRecord {
  id: string
  type: string
  status: 'pending' | 'delivered' | 'failed'
  attempts: number
  createdAtMs: number
  lastAttemptAtMs: number | null
  nextAttemptAtMs: number | null
  responseStatus: number | null
  lastError: string | null
}

const WEBHOOK_COLUMNS = 'id, user_id, url, events, secret, created_at, disabled_at'

function webhookOf(row: Record<string, unknown>): WebhookRecord {
  return {
    id: row.id as string,
    userId: row.user_id as string,
    url: row.url as string,
    events: JSON.parse(row.events as string) as WebhookEvent[],
    secret: row.secret as string,
    createdAt: row.created_at as string,
    disabledAt: (row.disabled_at as string | null) ?? null,
  }
}

/**
 * Stores a new webhook unless the person already has `max`: the count and the insert are one statement,
 * so two concurrent creations cannot both pass. Null when the limit holds.
 */
export async function insertWebhook(db: Database, webhook: WebhookRecord, max: number): Promise<boolean> {
  const [row] = await rows(
    db,
    `INSERT INTO webhooks (id, user_id, url, events, secret, created_at)
     SELECT ?, ?, ?, ?, ?, ? WHERE (SELECT count(*) FROM webhooks WHERE user_id = ?) < ?
     RETURNING id`,
    [
      webhook.id,
      webhook.userId,
      webhook.url,
      JSON.stringify(webhook.events),
      webhook.secret,
      webhook.createdAt,
      webhook.userId,
      max,
    ],
  )
  return row !== undefined
}

export async function listWebhooks(db: Database, userId: string): Promise<WebhookRecord[]> {
  const found = await rows(db, `SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE user_id = ? ORDER BY created_at, id`, [
    userId,
  ])
  return found.map(webhookOf)
}

/** The person's webhook with this id, or null (another person's is as good as none). */
export async function findWebhook(db: Database, userId: string, id: string): Promise<WebhookRecord | null> {
  const [row] = await rows(db, `SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE id = ? AND user_id = ?`, [id, userId])
  return row ? webhookOf(row) : null
}

/** Deletes the person's webhook and, by cascade, its outbox. False when there is no such webhook. */
export async function deleteWebhook(db: Database, userId: string, id: string): Promise<boolean> {
  const [row] = await rows(db, 'DELETE FROM webhooks WHERE id = ? AND user_id = ? RETURNING id', [id, userId])
  return row !== undefined
}

/** How many of a webhook's messages wait, and the status of its last delivery settled (null when none). */
export async function deliveryQueueOf(
  db: Database,
  webhookId: string,
): Promise<{ waiting: number; last: string | null }> {
  const [stats] = await rows(
    db,
    `SELECT (SELECT count(*) FROM webhook_deliveries WHERE webhook_id = ?1 AND status = 'pending') AS waiting,
            (SELECT status FROM webhook_deliveries WHERE webhook_id = ?1 AND status != 'pending' ORDER BY seq DESC LIMIT 1) AS last`,
    [webhookId],
  )
  return { waiting: Number(stats?.waiting ?? 0), last: (stats?.last as string | null) ?? null }
}

const DELIVERY_COLUMNS =
  'id, type, status, attempts, created_at_ms, last_attempt_at_ms, run_after_ms, response_status, last_error'

function deliveryOf(row: Record<string, unknown>): DeliveryRecord {
  const status = row.status as DeliveryRecord['status']
  const runAfter = Number(row.run_after_ms)
  return {
    id: row.id as string,
    type: row.type as string,
    status,
    attempts: Number(row.attempts),
    createdAtMs: Number(row.created_at_ms),
    lastAttemptAtMs: row.last_attempt_at_ms == null ? null : Number(row.last_attempt_at_ms),
    // A new message waits for nothing (run_after_ms 0): its next attempt is as soon as a worker is free.
    nextAttemptAtMs: status === 'pending' ? Math.max(runAfter, Number(row.created_at_ms)) : null,
    responseStatus: row.response_status == null ? null : Number(row.response_status),
    lastError: (row.last_error as string | null) ?? null,
  }
}

/**
 * The webhook's newest deliveries, newest first: the newest finished ones (their index) and the newest
 * waiting ones, merged. Waiting messages are kept out of the history index so a capture writes less.
 */
export async function recentDeliveries(db: Database, webhookId: string, limit: number): Promise<DeliveryRecord[]> {
  const found = await rows(
    db,
    `SELECT * FROM (SELECT seq, ${DELIVERY_COLUMNS} FROM webhook_deliveries INDEXED BY webhook_deliveries_history_idx
                    WHERE webhook_id = ?1 AND status != 'pending' ORDER BY seq DESC LIMIT ?2)
     UNION ALL
     SELECT * FROM (SELECT seq, ${DELIVERY_COLUMNS} FROM webhook_deliveries
                    WHERE webhook_id = ?1 AND status = 'pending' ORDER BY seq DESC LIMIT ?2)
     ORDER BY seq DESC LIMIT ?2`,
    [webhookId, limit],
  )
  return found.map(deliveryOf)
}

/** A claimed message: what to send where, and the lease this claim holds. */
export interface ClaimedDelivery {
  seq: number
  id: string
  webhookId: string
  /** The webhook's owner. */
  userId: string
  url: string
  secret: string
  type: string
  /** The item, folder or highlight the message is about. */
  entityId: string
  /** When the change was committed. */
  createdAtMs: number
  /** The body as signed; null for a message about an item before its first attempt writes it. */
  body: string | null
  /** Attempts started, this one included. */
  attempts: number
  leaseUntilMs: number
}

// The head of each enabled webhook's queue that has a free slot: its oldest due message that nobody holds
// and that no older message about the same item, folder or highlight still waits ahead of (per-entity order). A
// webhook with `perWebhook` messages in flight is skipped whole, so a receiver that hangs for 10 s holds a
// few workers, never all of them, and its backlog is never walked (the cost of a claim is one probe per
// webhook, not one per waiting message). Of the heads, the oldest message goes first.
const NEXT = `SELECT min(seq) AS next FROM (
  SELECT (SELECT d.seq FROM webhook_deliveries d INDEXED BY webhook_deliveries_queue_idx
          WHERE d.webhook_id = w.id AND d.status = 'pending' AND d.run_after_ms <= ?1
            AND (d.lease_until_ms IS NULL OR d.lease_until_ms <= ?1)
            AND NOT EXISTS (SELECT 1 FROM webhook_deliveries e WHERE e.webhook_id = d.webhook_id
                            AND e.entity_id = d.entity_id AND e.status = 'pending' AND e.seq < d.seq)
          ORDER BY d.run_after_ms, d.seq LIMIT 1) AS seq
  FROM webhooks w
  WHERE w.disabled_at IS NULL
    AND (SELECT count(*) FROM webhook_deliveries h WHERE h.webhook_id = w.id AND h.status = 'pending'
         AND h.lease_until_ms > ?1) < ?2)`

/**
 * Takes the next due message and holds it until `leaseUntilMs`. One UPDATE … RETURNING: SQLite runs one
 * writer at a time, so two processes never claim the same attempt, and the in-flight limit and the order
 * per item hold across processes.
 */
export async function claimDelivery(
  db: Database,
  nowMs: number,
  leaseUntilMs: number,
  perWebhook: number,
): Promise<ClaimedDelivery | null> {
  // Read first: every process polls, and an UPDATE that matches nothing still takes the write lock.
  const [found] = await rows(db, NEXT, [nowMs, perWebhook])
  if (found?.next == null) return null
  const [row] = await rows(
    db,
    `UPDATE webhook_deliveries SET lease_until_ms = ?3, attempts = attempts + 1, last_attempt_at_ms = ?1
     WHERE seq = (${NEXT}) AND status = 'pending' AND (lease_until_ms IS NULL OR lease_until_ms <= ?1)
     RETURNING seq, id, webhook_id, type, entity_id, created_at_ms, body, attempts`,
    [nowMs, perWebhook, leaseUntilMs],
  )
  if (!row) return null
  const [hook] = await rows(db, 'SELECT user_id, url, secret FROM webhooks WHERE id = ?', [row.webhook_id])
  // Deleted in between (its outbox went with it): nothing to send.
  if (!hook) return null
  return {
    seq: Number(row.seq),
    id: row.id as string,
    webhookId: row.webhook_id as string,
    userId: hook.user_id as string,
    url: hook.url as string,
    secret: hook.secret as string,
    type: row.type as string,
    entityId: row.entity_id as string,
    createdAtMs: Number(row.created_at_ms),
    body: (row.body as string | null) ?? null,
    attempts: Number(row.attempts),
    leaseUntilMs,
  }
}

/**
 * Writes a message's body at its first attempt, unless it has one: the item's deletion may have written it
 * (as the item was) since the claim. Returns the body every attempt of the message sends; null when `body`
 * is null and none was written.
 */
export async function fixBody(db: Database, seq: number, body: string | null): Promise<string | null> {
  const [row] = await rows(db, 'UPDATE webhook_deliveries SET body = coalesce(body, ?) WHERE seq = ? RETURNING body', [
    body,
    seq,
  ])
  return (row?.body as string | null | undefined) ?? null
}

/** The receiver said 2xx: the message is delivered and the webhook's failures in a row start over. */
export async function markDelivered(
  db: Database,
  claim: ClaimedDelivery,
  responseStatus: number,
  nowMs: number,
): Promise<void> {
  await runProgram(db, function* () {
    const changed = yield {
      run: `UPDATE webhook_deliveries SET status = 'delivered', lease_until_ms = NULL, response_status = ?, last_error = NULL,
            finished_at_ms = ? WHERE seq = ? AND lease_until_ms = ? AND status = 'pending'`,
      args: [responseStatus, nowMs, claim.seq, claim.leaseUntilMs],
    }
    if (changed) yield { run: 'UPDATE webhooks SET failures_in_row = 0 WHERE id = ?', args: [claim.webhookId] }
  })
}

/** Puts the message back for a later attempt (if this claim still holds it). */
export async function scheduleDeliveryRetry(
  db: Database,
  claim: ClaimedDelivery,
  outcome: { responseStatus: number | null; error: string },
  runAfterMs: number,
  nowMs: number,
): Promise<void> {
  await rows(
    db,
    // A webhook disabled while this attempt was out takes its message down with it: nothing would claim it.
    `UPDATE webhook_deliveries SET lease_until_ms = NULL, run_after_ms = ?, response_status = ?, last_error = ?,
       status = CASE WHEN (SELECT disabled_at FROM webhooks WHERE id = webhook_id) IS NULL THEN 'pending' ELSE 'failed' END,
       finished_at_ms = CASE WHEN (SELECT disabled_at FROM webhooks WHERE id = webhook_id) IS NULL THEN NULL ELSE ? END
     WHERE seq = ? AND lease_until_ms = ? AND status = 'pending' RETURNING seq`,
    [runAfterMs, outcome.responseStatus, outcome.error, nowMs, claim.seq, claim.leaseUntilMs],
  )
}

/**
 * Gives the message up (if this claim still holds it) and counts it against the webhook: at `disableAfter`
 * failures in a row the webhook is disabled, and its waiting messages are failed with it. True when this
 * failure disabled the webhook.
 */
export async function markDeliveryFailed(
  db: Database,
  claim: ClaimedDelivery,
  outcome: { responseStatus: number | null; error: string },
  nowMs: number,
  disableAfter: number,
): Promise<boolean> {
  return runProgram(db, function* () {
    const changed = yield {
      run: `UPDATE webhook_deliveries SET status = 'failed', lease_until_ms = NULL, response_status = ?, last_error = ?,
            finished_at_ms = ? WHERE seq = ? AND lease_until_ms = ? AND status = 'pending'`,
      args: [outcome.responseStatus, outcome.error, nowMs, claim.seq, claim.leaseUntilMs],
    }
    if (!changed) return false
    const disabled = (yield {
      all: `UPDATE webhooks SET failures_in_row = failures_in_row + 1,
              disabled_at = CASE WHEN disabled_at IS NULL AND failures_in_row + 1 >= ? THEN ? ELSE disabled_at END
            WHERE id = ? RETURNING disabled_at, failures_in_row`,
      args: [disableAfter, new Date(nowMs).toISOString(), claim.webhookId],
    }) as Record<string, unknown>[]
    const row = disabled[0]
    if (!row || row.disabled_at === null || Number(row.failures_in_row) !== disableAfter) return false
    yield {
      run: `UPDATE webhook_deliveries SET status = 'failed', last_error = 'webhook disabled after ${disableAfter} failed deliveries in a row',
            finished_at_ms = ? WHERE webhook_id = ? AND status = 'pending' AND (lease_until_ms IS NULL OR lease_until_ms <= ?)`,
      args: [nowMs, claim.webhookId, nowMs],
    }
    return true
  })
}

/**
 * A test message, stored already claimed by the request that sends it (so no worker takes it), with its one
 * attempt counted. Settled like any other, without retries.
 */
export async function insertTestDelivery(
  db: Database,
  webhook: Pick<WebhookRecord, 'id' | 'userId' | 'url' | 'secret'>,
  message: { id: string; type: string; body: string },
  nowMs: number,
  leaseUntilMs: number,
): Promise<ClaimedDelivery> {
  const [row] = await rows(
    db,
    `INSERT INTO webhook_deliveries (id, webhook_id, type, entity_id, body, status, attempts, run_after_ms, lease_until_ms,
       created_at_ms, last_attempt_at_ms)
     VALUES (?, ?, ?, ?, ?, 'pending', 1, ?, ?, ?, ?) RETURNING seq`,
    [message.id, webhook.id, message.type, message.id, message.body, nowMs, leaseUntilMs, nowMs, nowMs],
  )
  return {
    seq: Number(row!.seq),
    id: message.id,
    webhookId: webhook.id,
    userId: webhook.userId,
    type: message.type,
    entityId: message.id,
    createdAtMs: nowMs,
    url: webhook.url,
    secret: webhook.secret,
    body: message.body,
    attempts: 1,
    leaseUntilMs,
  }
}

/** Settles a test message: delivered or failed, never retried, never counted against the webhook. */
export async function settleTestDelivery(
  db: Database,
  claim: ClaimedDelivery,
  outcome: { delivered: boolean; responseStatus: number | null; error: string | null },
  nowMs: number,
): Promise<void> {
  await rows(
    db,
    `UPDATE webhook_deliveries SET status = ?, lease_until_ms = NULL, response_status = ?, last_error = ?, finished_at_ms = ?
     WHERE seq = ? RETURNING seq`,
    [outcome.delivered ? 'delivered' : 'failed', outcome.responseStatus, outcome.error, nowMs, claim.seq],
  )
}

/** A delivery as it stands, by its place in the outbox. */
export async function findDelivery(db: Database, seq: number): Promise<DeliveryRecord | null> {
  const [row] = await rows(db, `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE seq = ?`, [seq])
  return row ? deliveryOf(row) : null
}

/** Drops finished deliveries older than the cutoff (maintenance); pending ones stay whatever their age. */
export async function pruneDeliveries(db: Database, cutoffMs: number): Promise<void> {
  await runProgram(db, function* () {
    yield { run: 'DELETE FROM webhook_deliveries WHERE finished_at_ms < ?', args: [cutoffMs] }
  })
}
