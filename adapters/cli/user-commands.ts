import { canonicalEmail, emailProblem } from '../../core/auth/email.ts'
import { passwordProblem } from '../../core/auth/passwords.ts'
import { changePassword, createAccount, deleteAccount, findAccountByEmail, listAccounts } from '../app/accounts.ts'
import { parseFlags, passwordFromStdin, UsageError } from './flags.ts'
import type { CliDeps, CliIo } from './cli-deps.ts'

/** `user create --email E (--password P | --password-stdin)`: prints the new id. */
export async function userCreate(args: string[], deps: CliDeps, io: CliIo): Promise<number> {
  const flags = parseFlags(args, { required: ['email'], optional: ['password'], switches: ['password-stdin'] })
  if ((flags.password === undefined) === (flags['password-stdin'] === undefined))
    throw new UsageError('give exactly one of --password P or --password-stdin')
  const email = flags.email!
  if (emailProblem(email.trim())) throw new UsageError(`"${email}" is not an email address`)
  const password = flags.password ?? passwordFromStdin(await deps.readStdin())
  const problem = passwordProblem(password)
  if (problem) throw new UsageError(problem)
  const db = await deps.openDb()
  const account = await createAccount({ db, clock: deps.clock, random: deps.random }, { email, password })
  if (account.kind === 'email-taken') {
    io.err(`error: an account with email ${canonicalEmail(email)} already exists`)
    return 1
  }
  io.out(account.id)
  return 0
}

/**
 * `user list`: one tab-separated line per person: id, email, created, item count, bytes of archived images
 * (docs/operations.md#admin-cli).
 */
export async function userList(args: string[], deps: CliDeps, io: CliIo): Promise<number> {
  parseFlags(args, {})
  const db = await deps.openDb()
  for (const row of await listAccounts({ db }))
    io.out([row.id, row.email, row.createdAt, String(row.items), String(row.imageBytes)].join('\t'))
  return 0
}

/** `user password --email E`: the new password from stdin; every web session of the person ends. */
export async function userPassword(args: string[], deps: CliDeps, io: CliIo): Promise<number> {
  const flags = parseFlags(args, { required: ['email'] })
  const password = passwordFromStdin(await deps.readStdin())
  const problem = passwordProblem(password)
  if (problem) throw new UsageError(problem)
  const db = await deps.openDb()
  const user = await findAccountByEmail({ db }, flags.email!)
  if (!user) return noAccount(io, flags.email!)
  const ended = await changePassword({ db }, user.id, password)
  io.out(`Password changed for ${user.email}; ${ended} web session${ended === 1 ? '' : 's'} ended.`)
  return 0
}

/** `user delete --email E --yes`: the person and everything of theirs. */
export async function userDelete(args: string[], deps: CliDeps, io: CliIo): Promise<number> {
  const flags = parseFlags(args, { required: ['email'], switches: ['yes'] })
  if (!flags.yes) throw new UsageError('user delete removes the account and everything in it; add --yes to confirm')
  const db = await deps.openDb()
  const user = await findAccountByEmail({ db }, flags.email!)
  if (!user || !(await deleteAccount({ db }, user.id))) return noAccount(io, flags.email!)
  io.out(`Deleted ${user.email} (${user.id}) and everything of theirs.`)
  return 0
}

export function noAccount(io: CliIo, email: string): number {
  io.err(`error: no account with email ${canonicalEmail(email)}`)
  return 1
}
