import { uuidv7 } from '../core/ids.ts'
import { prepareCapture } from '../core/items/capture.ts'
import { webRandom } from '../core/time.ts'
import type { Database } from '../adapters/storage/open-database.ts'
import { upsertCapture } from '../adapters/storage/saved-items.ts'
import { findUserByEmail } from '../adapters/storage/users.ts'

// What a capture costs with and without something on its write path (the changes log, a webhook): the same
// upserts through the same code, in process, 64 at a time as the group commit takes them.

export async function userOf(db: Database, email: string): Promise<string> {
  return (await findUserByEmail(db, email))!.id
}

/** Captures of `count` new pages for the person; captures per second. */
export async function captureRate(db: Database, userId: string, round: string, count: number): Promise<number> {
  const started = performance.now()
  let batch: Promise<unknown>[] = []
  for (let i = 0; i < count; i++) {
    const prepared = prepareCapture(
      { url: `https://site${i % 200}.example.com/${round}/${i}` },
      { id: uuidv7(Date.now(), webRandom), userId, now: new Date(), connectClient: null },
    )
    batch.push(upsertCapture(db, prepared))
    if (batch.length >= 64) {
      await Promise.all(batch)
      batch = []
    }
  }
  await Promise.all(batch)
  return count / ((performance.now() - started) / 1000)
}
