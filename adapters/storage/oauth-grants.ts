import { and, desc, eq, isNull, sql } from 'drizzle-orm'
import type { Database } from './open-database.ts'
import { oauthClients, oauthGrants } from './schema.ts'
import { preparedPer } from './prepared.ts'
import { revokeIssuedKeys } from './api-keys.ts'

export type GrantRow = typeof oauthGrants.$inferSelect

const activeGrant = preparedPer((db) =>
  db
    .select()
    .from(oauthGrants)
    .where(and(eq(oauthGrants.id, sql.placeholder('id')), isNull(oauthGrants.revokedAt)))
    .prepare(),
)

/** The grant behind a token, if it is still in force: checked on every use, so revocation is immediate. */
export async function findActiveGrant(db: Database, id: string): Promise<GrantRow | null> {
  const [row] = await activeGrant(db).execute({ id })
  return row ?? null
}

export interface ConnectedAgent {
  grantId: string
  clientId: string
  clientName: string
  scopes: string[]
  createdAt: string
  lastUsedAt: string | null
}

/** The person's grants in force, newest first, for the settings page. */
export async function listActiveGrants(db: Database, userId: string): Promise<ConnectedAgent[]> {
  return db
    .select({
      grantId: oauthGrants.id,
      clientId: oauthGrants.clientId,
      clientName: oauthClients.name,
      scopes: oauthGrants.scopes,
      createdAt: oauthGrants.createdAt,
      lastUsedAt: oauthGrants.lastUsedAt,
    })
    .from(oauthGrants)
    .innerJoin(oauthClients, eq(oauthClients.id, oauthGrants.clientId))
    .where(and(eq(oauthGrants.userId, userId), isNull(oauthGrants.revokedAt)))
    .orderBy(desc(oauthGrants.createdAt))
}

/** The name of the client of each of the person's grants, revoked or not: grant id -> client name. */
export async function grantClientNames(db: Database, userId: string): Promise<Map<string, string>> {
  const rows = await db
    .select({ id: oauthGrants.id, name: oauthClients.name })
    .from(oauthGrants)
    .innerJoin(oauthClients, eq(oauthClients.id, oauthGrants.clientId))
    .where(eq(oauthGrants.userId, userId))
  return new Map(rows.map((row) => [row.id, row.name]))
}

/**
 * Ends a grant and with it every code, access token and refresh token issued under it, and every API key
 * minted through the connect flow with its tokens (docs/security.md#connect-issued-keys).
 */
export async function revokeGrant(db: Database, grantId: string, now: string, userId?: string): Promise<boolean> {
  const where =
    userId === undefined
      ? and(eq(oauthGrants.id, grantId), isNull(oauthGrants.revokedAt))
      : and(eq(oauthGrants.id, grantId), eq(oauthGrants.userId, userId), isNull(oauthGrants.revokedAt))
  const rows = await db.update(oauthGrants).set({ revokedAt: now }).where(where).returning({ id: oauthGrants.id })
  if (rows.length === 0) return false
  await revokeIssuedKeys(db, { grantId }, now)
  return true
}

/** Records use at most once a minute per grant (an UPDATE takes the write lock even when it changes nothing). */
export async function touchGrant(db: Database, grant: GrantRow, now: Date): Promise<void> {
  if (grant.lastUsedAt && now.getTime() - Date.parse(grant.lastUsedAt) < 60_000) return
  await db.update(oauthGrants).set({ lastUsedAt: now.toISOString() }).where(eq(oauthGrants.id, grant.id))
}
