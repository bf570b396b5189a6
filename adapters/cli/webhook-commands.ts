import { findAccountByEmail } from '../app/accounts.ts'
import { deleteWebhookOf, webhookQueues } from '../app/webhooks.ts'
import { parseFlags } from './flags.ts'
import type { CliDeps, CliIo } from './cli-deps.ts'
import { noAccount } from './user-commands.ts'

/** The URL without its query: a receiver's token often sits there, and an operator's screen is no place for it. */
function shown(url: string): string {
  const parsed = new URL(url)
  return `${parsed.origin}${parsed.pathname}${parsed.search ? '?…' : ''}`
}

/**
 * `webhook list --email E`: one tab-separated line per webhook: id, URL (query hidden), events, created,
 * `enabled` or `disabled <when>`, messages waiting, and the last delivery's status (`-` when none).
 * Never the secret.
 */
export async function webhookList(args: string[], deps: CliDeps, io: CliIo): Promise<number> {
  const flags = parseFlags(args, { required: ['email'] })
  const db = await deps.openDb()
  const user = await findAccountByEmail({ db }, flags.email!)
  if (!user) return noAccount(io, flags.email!)
  for (const { webhook, waiting, last } of await webhookQueues({ db }, user.id)) {
    io.out(
      [
        webhook.id,
        shown(webhook.url),
        webhook.events.join(','),
        webhook.createdAt,
        webhook.disabledAt ? `disabled ${webhook.disabledAt}` : 'enabled',
        `${waiting} waiting`,
        `last ${last ?? '-'}`,
      ].join('\t'),
    )
  }
  return 0
}

/** `webhook delete --email E --id ID`: deletes the person's webhook and its waiting messages. */
export async function webhookDelete(args: string[], deps: CliDeps, io: CliIo): Promise<number> {
  const flags = parseFlags(args, { required: ['email', 'id'] })
  const db = await deps.openDb()
  const user = await findAccountByEmail({ db }, flags.email!)
  if (!user) return noAccount(io, flags.email!)
  if (!(await deleteWebhookOf({ db }, user.id, flags.id!))) {
    io.err(`error: ${user.email} has no webhook with id ${flags.id}`)
    return 1
  }
  io.out(`Deleted webhook ${flags.id} of ${user.email} and its waiting messages.`)
  return 0
}
