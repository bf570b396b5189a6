import { and, eq, inArray, isNotNull, isNull, lt, sql } from 'drizzle-orm'
import { atomically, type Database } from './open-database.ts'
import { oauthClients, oauthCodes, oauthGrants, oauthRefreshTokens } from './schema.ts'
import { preparedPer } from './prepared.ts'
import type { GrantRow } from './oauth-grants.ts'

// OAuth clients, authorization codes and refresh tokens. Codes and refresh tokens are looked up by the
// SHA-256 of their value and spent with one conditional UPDATE, so two concurrent redemptions (in one
// process or two) can never both win.

export type ClientRow = typeof oauthClients.$inferSelect
export type CodeRow = typeof oauthCodes.$inferSelect
export type RefreshTokenRow = typeof oauthRefreshTokens.$inferSelect

export async function insertClient(db: Database, row: typeof oauthClients.$inferInsert): Promise<void> {
  await db.insert(oauthClients).values(row)
}

/** Creates or refreshes a client known by its metadata-document URL; `createdAt` stays the first one. */
export async function upsertClient(db: Database, row: typeof oauthClients.$inferInsert): Promise<ClientRow> {
  const [stored] = await db
    .insert(oauthClients)
    .values(row)
    .onConflictDoUpdate({
      target: oauthClients.id,
      set: {
        name: row.name,
        redirectUris: row.redirectUris,
        grantTypes: row.grantTypes,
        scope: row.scope ?? null,
        metadata: row.metadata,
      },
    })
    .returning()
  return stored!
}

const clientById = preparedPer((db) =>
  db
    .select()
    .from(oauthClients)
    .where(eq(oauthClients.id, sql.placeholder('id')))
    .prepare(),
)

export async function findClient(db: Database, id: string): Promise<ClientRow | null> {
  const [row] = await clientById(db).execute({ id })
  return row ?? null
}

/** A grant whatever its state: token checks must tell "revoked" from "never existed". */
export async function findGrant(db: Database, id: string): Promise<GrantRow | null> {
  const [row] = await db.select().from(oauthGrants).where(eq(oauthGrants.id, id))
  return row ?? null
}

/** Records consent and the first code under it at once, so no grant is left without its code. */
export async function insertGrantWithCode(
  db: Database,
  grant: typeof oauthGrants.$inferInsert,
  code: typeof oauthCodes.$inferInsert,
): Promise<void> {
  await atomically(db, [db.insert(oauthGrants).values(grant), db.insert(oauthCodes).values(code)])
}

export async function findCode(db: Database, codeHash: string): Promise<CodeRow | null> {
  const [row] = await db.select().from(oauthCodes).where(eq(oauthCodes.codeHash, codeHash))
  return row ?? null
}

/** Spends a code; false when it was already spent (a replay, or a concurrent redemption that won). */
export async function spendCode(db: Database, codeHash: string, now: string): Promise<boolean> {
  const rows = await db
    .update(oauthCodes)
    .set({ usedAt: now })
    .where(and(eq(oauthCodes.codeHash, codeHash), isNull(oauthCodes.usedAt)))
    .returning({ codeHash: oauthCodes.codeHash })
  return rows.length > 0
}

export async function insertRefreshToken(db: Database, row: typeof oauthRefreshTokens.$inferInsert): Promise<void> {
  await db.insert(oauthRefreshTokens).values(row)
}

export async function findRefreshToken(db: Database, tokenHash: string): Promise<RefreshTokenRow | null> {
  const [row] = await db.select().from(oauthRefreshTokens).where(eq(oauthRefreshTokens.tokenHash, tokenHash))
  return row ?? null
}

/** Spends a refresh token; false when it was already spent (reuse, or a concurrent rotation that won). */
export async function spendRefreshToken(db: Database, tokenHash: string, now: string): Promise<boolean> {
  const rows = await db
    .update(oauthRefreshTokens)
    .set({ usedAt: now })
    .where(and(eq(oauthRefreshTokens.tokenHash, tokenHash), isNull(oauthRefreshTokens.usedAt)))
    .returning({ tokenHash: oauthRefreshTokens.tokenHash })
  return rows.length > 0
}

/**
 * Deletes what can no longer matter: codes a day past expiry (a replay that late is refused as unknown),
 * the refresh tokens of revoked grants, and metadata-document clients nobody consented to. Spent refresh tokens of live grants stay: reuse detection
 * needs them.
 */
export async function pruneOAuth(db: Database, now: Date): Promise<void> {
  const dayAgo = new Date(now.getTime() - 86_400_000).toISOString()
  await db.delete(oauthCodes).where(lt(oauthCodes.expiresAt, dayAgo))
  await db
    .delete(oauthRefreshTokens)
    .where(
      inArray(
        oauthRefreshTokens.grantId,
        db.select({ id: oauthGrants.id }).from(oauthGrants).where(isNotNull(oauthGrants.revokedAt)),
      ),
    )
  // Clients known by a metadata-document URL are recorded (and `fetched_at` renewed) at each authorization;
  // one without any grant whose document was last read a day ago is dropped: the next authorization reads
  // the document again anyway.
  await db
    .delete(oauthClients)
    .where(
      and(
        sql`json_extract(${oauthClients.metadata}, '$.client_id_metadata_document') = 1`,
        sql`json_extract(${oauthClients.metadata}, '$.fetched_at') < ${dayAgo}`,
        sql`NOT EXISTS (SELECT 1 FROM ${oauthGrants} WHERE ${oauthGrants.clientId} = ${oauthClients.id})`,
      ),
    )
  // A registered client nobody authorized within a week never will be: registration is open to anyone
  // (per-IP limited), so unused registrations would otherwise pile up (docs/oauth.md#registration).
  const weekAgo = new Date(now.getTime() - UNUSED_CLIENT_DAYS * 86_400_000).toISOString()
  await db
    .delete(oauthClients)
    .where(
      and(
        lt(oauthClients.createdAt, weekAgo),
        sql`NOT EXISTS (SELECT 1 FROM ${oauthGrants} WHERE ${oauthGrants.clientId} = ${oauthClients.id})`,
      ),
    )
}

/** How long a registered client may wait for its first authorization before maintenance drops it. */
export const UNUSED_CLIENT_DAYS = 7
