import { lt } from 'drizzle-orm'
import { RETIRED_KEY_GRACE_MS } from '../../core/auth/lifetimes.ts'
import type { Database } from './open-database.ts'
import { signingKeys } from './schema.ts'

/** Deletes signing keys retired longer than their last token lives (maintenance; docs/oauth.md#signing-keys). */
export async function pruneRetiredSigningKeys(db: Database, now: Date): Promise<void> {
  const before = new Date(now.getTime() - RETIRED_KEY_GRACE_MS).toISOString()
  await db.delete(signingKeys).where(lt(signingKeys.retiredAt, before))
}
