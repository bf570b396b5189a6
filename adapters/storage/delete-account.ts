import { eq, sql } from 'drizzle-orm'
import { atomically, type Database } from './open-database.ts'
import {
  apiKeys,
  changes,
  changesPruned,
  idempotencyKeys,
  oauthGrants,
  rateLimits,
  users,
  webhooks,
  webSessions,
} from './schema.ts'
import { findUserById } from './users.ts'

/**
 * Removes a person and everything of theirs in one unit (docs/operations.md#deleting-an-account): the user
 * row cascades to items (and their enrichment jobs, articles and highlights), folders, API keys, OAuth grants (and their codes and
 * refresh tokens), web sessions and connect codes; webhooks (and their outbox) go first; idempotency records, the rate-limit counters of their
 * credentials and their changes feed have no foreign key and go explicitly. The email is then free to sign up again.
 * Returns false when there is no such person.
 */
export async function deleteAccount(db: Database, userId: string): Promise<boolean> {
  if (!(await findUserById(db, userId))) return false
  // Bucket names as the request guard writes them: `cred:` + the credential id (adapters/http/credentials.ts).
  const buckets = sql`SELECT 'cred:key:' || ${apiKeys.id} FROM ${apiKeys} WHERE ${apiKeys.userId} = ${userId}
    UNION SELECT 'cred:grant:' || ${oauthGrants.id} FROM ${oauthGrants} WHERE ${oauthGrants.userId} = ${userId}
    UNION SELECT 'cred:session:' || substr(${webSessions.tokenHash}, 1, 32) FROM ${webSessions} WHERE ${webSessions.userId} = ${userId}`
  await atomically(db, [
    db.delete(rateLimits).where(sql`${rateLimits.bucket} IN (${buckets})`),
    db.delete(idempotencyKeys).where(eq(idempotencyKeys.userId, userId)),
    // Before the user: the cascade's deletes of items and folders must not queue messages to their webhooks.
    db.delete(webhooks).where(eq(webhooks.userId, userId)),
    db.delete(users).where(eq(users.id, userId)),
    // After the user: the cascade's deletes of items and folders are logged too, and go with the rest.
    db.delete(changes).where(eq(changes.userId, userId)),
    db.delete(changesPruned).where(eq(changesPruned.userId, userId)),
  ])
  return true
}
