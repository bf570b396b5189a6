import {
  claimIdempotencyRecord,
  type IdempotencyClaim,
  type IdempotentRequest,
  keepIdempotentAnswer,
  releaseIdempotencyClaim,
} from '../app/idempotency.ts'
import type { Database } from '../storage/open-database.ts'

export type { IdempotencyClaim, IdempotentRequest }

/** Response headers that belong to the first response and are replayed with it (cache rules included). */
const REPLAYED_HEADERS = ['content-type', 'link', 'location', 'cache-control']

/**
 * A route whose answer hands out a secret (a connect code) marks it with this header; such an answer is
 * never kept for replay, so the secret exists only in the response that carried it (docs/api.md#idempotency).
 */
export const NO_REPLAY_HEADER = 'x-readlater-no-replay'

/**
 * A route whose JSON answer carries a secret beside the outcome (a new webhook and its signing secret) names
 * that top-level field in this header: the answer is kept for replay with the field set to null, so a retry
 * gets the same outcome (the same webhook, not a second one) and the secret never reaches the table; it
 * exists only in the response that carried it (docs/api.md#idempotency).
 */
export const REPLAY_WITHOUT_HEADER = 'x-readlater-replay-without'

/** How an answer is kept for replay: not at all, or as sent but for the top-level fields in `without`. */
export type ReplayRule = { keep: false } | { keep: true; without: readonly string[] }

/**
 * The first half of running a request at most once per (credential, Idempotency-Key)
 * (docs/api.md#idempotency): claims the key, or answers with the stored response of the first request
 * (`Idempotent-Replayed: true`), or refuses a reuse (422) or a key still in flight (409). The record lives
 * in the database, so it holds across restarts and across processes. Another credential of the same
 * person never sees it.
 */
export async function claimIdempotency(
  db: Database,
  input: IdempotentRequest,
): Promise<{ replay: Response } | { claim: IdempotencyClaim }> {
  const outcome = await claimIdempotencyRecord(db, input)
  if ('claim' in outcome) return outcome
  const headers = new Headers(outcome.stored.headers)
  headers.set('idempotent-replayed', 'true')
  return { replay: new Response(outcome.stored.body || null, { status: outcome.stored.status, headers }) }
}

/**
 * The second half: keeps the answer for replay and returns it to send, or frees the key when the answer
 * is not worth keeping: a server error (the client is told to retry with the same key), an answer that
 * is a secret (`keep` false: a retry runs again and gets a new secret), or a body that failed schema
 * validation (it never reached the operation, so the key stays free for the corrected request, as Stripe does).
 * An answer with a secret beside its outcome is kept with the fields in `without` set to null.
 */
export async function settleIdempotency(
  db: Database,
  claim: IdempotencyClaim,
  response: Response,
  rule: ReplayRule,
): Promise<Response> {
  if (response.status >= 500 || !rule.keep) {
    await releaseIdempotencyClaim(db, claim)
    return response
  }
  const body = await response.text()
  if (response.status === 400 && isValidationErrorBody(body)) {
    await releaseIdempotencyClaim(db, claim)
    return new Response(body, { status: response.status, headers: response.headers })
  }
  const headers: [string, string][] = REPLAYED_HEADERS.flatMap((name) => {
    const value = response.headers.get(name)
    return value === null ? [] : [[name, value] as [string, string]]
  })
  await keepIdempotentAnswer(db, claim, {
    status: response.status,
    headers,
    body: rule.without.length === 0 ? body : withFieldsNull(body, rule.without),
  })
  return new Response(body || null, { status: response.status, headers: response.headers })
}

/** A JSON object's text with these top-level fields null (those it has); any other body as it is. */
function withFieldsNull(body: string, fields: readonly string[]): string {
  let value: unknown
  try {
    value = JSON.parse(body)
  } catch {
    return body
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return body
  const object = value as Record<string, unknown>
  for (const field of fields) if (field in object) object[field] = null
  return JSON.stringify(object)
}

function isValidationErrorBody(body: string): boolean {
  try {
    return (JSON.parse(body) as { _tag?: unknown })?._tag === 'ValidationError'
  } catch {
    return false
  }
}
