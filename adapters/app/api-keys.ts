import { apiKeyDisplayPrefix, generateApiKey } from '../../core/auth/api-keys.ts'
import { hashSecret } from './secret-hash.ts'
import { uuidv7 } from '../../core/ids.ts'
import { displayTextProblem } from '../../core/text/display-text.ts'
import { toTimestamp } from '../../core/time.ts'
import type { Clock, ConnectClient, RandomSource, Scope } from '../../core/types.ts'
import {
  type ActiveApiKey,
  findActiveApiKey,
  insertIssuedApiKey,
  listApiKeysOldestFirst,
  revokeApiKey,
  keyUseDue,
  touchApiKey,
  type ApiKeyRow,
} from '../storage/api-keys.ts'
import { grantClientNames } from '../storage/oauth-grants.ts'
import { andThen, type MaybePromise } from '../../core/at-once.ts'
import type { Database } from '../storage/open-database.ts'

export const MAX_KEY_LABEL_LENGTH = 100

/** Why a key label cannot be used (the rule of connect labels too: core/text/display-text.ts), or null. */
export function keyLabelProblem(label: string): string | null {
  const trimmed = label.trim()
  if (trimmed.length === 0) return 'give the key a label'
  const problem = displayTextProblem(trimmed, MAX_KEY_LABEL_LENGTH)
  return problem && `the label ${problem}`
}

export interface NewApiKey {
  userId: string
  /** Already checked with {@link keyLabelProblem}; stored trimmed. */
  label: string
  scopes: readonly Scope[]
  connectClient?: ConnectClient | null
  deviceHint?: string | null
  /** The credential that authorized a connect-issued key (docs/security.md#connect-issued-keys). */
  issuedBy?: { keyId: string } | { grantId: string } | null
}

/**
 * The key in force that a presented API key is, with its use recorded (at most once a minute); null for a
 * key that is unknown or revoked. Every lookup goes to the database, so a revocation by any process counts
 * on the very next request.
 */
export function useApiKey(deps: { db: Database; clock: Clock }, key: string): MaybePromise<ActiveApiKey | null> {
  // At once on an embedded file, except the once-a-minute write of the use (core/at-once.ts).
  return andThen(findActiveApiKey(deps.db, hashSecret(key)), (found) => {
    if (!found) return null
    const now = deps.clock.now()
    return keyUseDue(found, now) ? touchApiKey(deps.db, found, now).then(() => found) : found
  })
}

/**
 * Issues an API key: the one place keys are made (settings, the admin CLI, the connect flow). The key is
 * returned once and stored only as its hash. Null when the issuer was revoked meanwhile.
 */
export async function issueApiKey(
  deps: { db: Database; clock: Clock; random: RandomSource },
  input: NewApiKey,
): Promise<{ id: string; key: string } | null> {
  const now = deps.clock.now()
  const key = generateApiKey(deps.random)
  const id = uuidv7(now.getTime(), deps.random)
  const issuedBy = input.issuedBy ?? null
  const inserted = await insertIssuedApiKey(deps.db, {
    id,
    userId: input.userId,
    keyHash: hashSecret(key),
    prefix: apiKeyDisplayPrefix(key),
    label: input.label.trim(),
    scopes: [...input.scopes],
    connectClient: input.connectClient ?? null,
    deviceHint: input.deviceHint ?? null,
    issuedByKeyId: issuedBy && 'keyId' in issuedBy ? issuedBy.keyId : null,
    issuedByGrantId: issuedBy && 'grantId' in issuedBy ? issuedBy.grantId : null,
    createdAt: toTimestamp(now),
  })
  return inserted ? { id, key } : null
}

/**
 * Revokes a key in force and every key issued through it (docs/security.md#connect-issued-keys); `userId`
 * null: whoever owns it (the admin CLI). False when there is no such key in force.
 */
export function revokeKey(deps: { db: Database; clock: Clock }, userId: string | null, id: string): Promise<boolean> {
  return revokeApiKey(deps.db, userId, id, toTimestamp(deps.clock.now()))
}

/**
 * The person's keys in force, oldest first, with the client name of each of their grants (grant id ->
 * name), so a connect-issued key can name the agent that issued it (the admin CLI's `key list`).
 */
export async function keysInForce(
  deps: { db: Database },
  userId: string,
): Promise<{ keys: ApiKeyRow[]; agentNames: Map<string, string> }> {
  const keys = await listApiKeysOldestFirst(deps.db, userId)
  return { keys, agentNames: await grantClientNames(deps.db, userId) }
}
