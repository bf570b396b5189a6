import { IdempotencyKeyInFlightError, IdempotencyKeyReuseError } from '../../core/errors.ts'
import {
  decideIdempotency,
  fingerprintRequest,
  IDEMPOTENCY_TTL_SECONDS,
  validateIdempotencyKey,
} from '../../core/limits/idempotency.ts'
import {
  claimIdempotencyKey,
  completeIdempotencyKey,
  findIdempotencyRecord,
  releaseIdempotencyKey,
  type StoredResponse,
  takeOverIdempotencyKey,
} from '../storage/idempotency.ts'
import type { Database } from '../storage/open-database.ts'

// Running a request at most once per (credential, Idempotency-Key) (docs/api.md#idempotency): the record
// and its rules. The HTTP side (what a response keeps, the replayed headers) is adapters/http/idempotency.ts.

export type { StoredResponse }

export interface IdempotentRequest {
  credentialId: string
  userId: string
  rawKey: string
  method: string
  pathWithQuery: string
  body: Uint8Array
  nowMs: number
}

/** A key this request holds until its answer is kept or the key freed. */
export interface IdempotencyClaim {
  credentialId: string
  key: string
}

/**
 * Claims the key for this request, or gives the stored answer of the first request with it, or refuses a
 * reuse with another request (IdempotencyKeyReuseError) or a key still in flight
 * (IdempotencyKeyInFlightError). The record lives in the database, so it holds across restarts and across
 * processes. Another credential of the same person never sees it.
 */
export async function claimIdempotencyRecord(
  db: Database,
  input: IdempotentRequest,
): Promise<{ stored: StoredResponse } | { claim: IdempotencyClaim }> {
  const key = validateIdempotencyKey(input.rawKey)
  const fingerprint = await fingerprintRequest(input.method, input.pathWithQuery, input.body)
  const expiresAtMs = input.nowMs + IDEMPOTENCY_TTL_SECONDS * 1000
  const claim = {
    credentialId: input.credentialId,
    userId: input.userId,
    key,
    fingerprint,
    nowMs: input.nowMs,
    expiresAtMs,
  }
  let claimed = await claimIdempotencyKey(db, claim)
  while (!claimed) {
    const existing = await findIdempotencyRecord(db, input.credentialId, key)
    if (!existing) {
      claimed = await claimIdempotencyKey(db, claim) // the holder released it in between
      continue
    }
    const decision = decideIdempotency(existing, fingerprint, input.nowMs)
    if (decision === 'replay' && existing.response) return { stored: existing.response }
    if (decision === 'reuse-conflict')
      throw new IdempotencyKeyReuseError('This Idempotency-Key was already used for a different request')
    if (decision === 'in-flight' || decision === 'replay')
      throw new IdempotencyKeyInFlightError(
        'A request with this Idempotency-Key is still being processed; retry shortly',
      )
    claimed = await takeOverIdempotencyKey(db, { ...claim, observedLockedAtMs: existing.lockedAtMs })
  }
  return { claim: { credentialId: input.credentialId, key } }
}

/** Keeps the answer for replay to every retry with the key. */
export function keepIdempotentAnswer(db: Database, claim: IdempotencyClaim, answer: StoredResponse): Promise<void> {
  return completeIdempotencyKey(db, claim.credentialId, claim.key, answer)
}

/** Frees the key: a retry with it runs the request again. */
export function releaseIdempotencyClaim(db: Database, claim: IdempotencyClaim): Promise<void> {
  return releaseIdempotencyKey(db, claim.credentialId, claim.key)
}
