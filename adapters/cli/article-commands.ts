import { findAccountByEmail } from '../app/accounts.ts'
import { refreshArticles } from '../app/reading.ts'
import { parseFlags, UsageError } from './flags.ts'
import { noAccount } from './user-commands.ts'
import type { CliDeps, CliIo } from './cli-deps.ts'

/**
 * `articles refresh [--email E | --all]`: extract the articles of enriched items again, at low priority
 * (after an upgrade of the extractor, say). A running server's workers pick the jobs up.
 * @see docs/reading.md#backfill
 */
export async function articlesRefresh(args: string[], deps: CliDeps, io: CliIo): Promise<number> {
  const flags = parseFlags(args, { optional: ['email'], switches: ['all'] })
  if ((flags.email === undefined) === (flags.all === undefined))
    throw new UsageError('give exactly one of --email E or --all')
  const db = await deps.openDb()
  let userId: string | null = null
  if (flags.email !== undefined) {
    const user = await findAccountByEmail({ db }, flags.email)
    if (!user) return noAccount(io, flags.email)
    userId = user.id
  }
  const count = await refreshArticles({ db, clock: deps.clock }, userId)
  io.out(`Queued ${count} item${count === 1 ? '' : 's'} for article extraction, after live work.`)
  return 0
}
