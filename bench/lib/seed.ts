/** Data for the benches: seeded generators, people, and captures straight through the storage layer. */
import { join } from 'node:path'
import { uuidv7 } from '../../core/ids.ts'
import { prepareCapture } from '../../core/items/capture.ts'
import { webRandom } from '../../core/time.ts'
import { openDatabase, type Database } from '../../adapters/storage/open-database.ts'
import { upsertCapture } from '../../adapters/storage/saved-items.ts'
import { findUserByEmail } from '../../adapters/storage/users.ts'
import { createPerson } from './processes.ts'

/** A seeded generator of numbers in [0, 1), so every run of a bench generates the same data. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (Math.imul(state ^ (state >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0
    return state / 2 ** 32
  }
}

/** The id of the person with this email. */
export async function userOf(db: Database, email: string): Promise<string> {
  return (await findUserByEmail(db, email))!.id
}

// What a capture costs with and without something on its write path (the changes log, a webhook): the same
// upserts through the same code, in process, 64 at a time as the group commit takes them.

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

/** One of the two databases of a capture comparison, and its person. */
export interface CaptureSide {
  db: Database
  userId: string
}

/**
 * The two databases of a capture comparison, `with.db` and `without.db` in `dir`: each migrated, with the
 * person `email` made by the admin CLI, open in this process. The caller puts the thing measured on one side.
 */
export async function captureSides(dir: string, email: string): Promise<[CaptureSide, CaptureSide]> {
  const sides: CaptureSide[] = []
  for (const name of ['with', 'without']) {
    const url = `file:${join(dir, `${name}.db`)}`
    await createPerson({ LOG_LEVEL: 'silent', DATABASE_URL: url }, email)
    const db = await openDatabase(url)
    sides.push({ db, userId: await userOf(db, email) })
  }
  return sides as [CaptureSide, CaptureSide]
}

/** Captures per second on each side, `rounds` rounds of `perRound` captures, alternated (the machine drifts). */
export async function alternatedCaptureRates(
  [a, b]: [CaptureSide, CaptureSide],
  rounds: number,
  perRound: number,
): Promise<{ with: number[]; without: number[] }> {
  const rates = { with: [] as number[], without: [] as number[] }
  for (let round = 0; round < rounds; round++) {
    rates.with.push(await captureRate(a.db, a.userId, `a${round}`, perRound))
    rates.without.push(await captureRate(b.db, b.userId, `b${round}`, perRound))
  }
  return rates
}
