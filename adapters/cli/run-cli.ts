import { apiKeyDisplayPrefix, generateApiKey, hashApiKey } from '../../core/auth/api-keys.ts'
import { isScope } from '../../core/auth/scopes.ts'
import { uuidv7 } from '../../core/ids.ts'
import { toTimestamp } from '../../core/time.ts'
import { SCOPES, type Clock, type RandomSource } from '../../core/types.ts'
import type { Database } from '../storage/open-database.ts'
import { insertApiKey } from '../storage/api-keys.ts'
import { findUserByEmail, insertUser } from '../storage/users.ts'
import { hashPassword, passwordProblem } from './passwords.ts'
import { emailProblem } from '../web/forms.ts'

export interface CliIo {
  out(line: string): void
  err(line: string): void
}

export interface CliDeps {
  openDb(): Promise<Database>
  clock: Clock
  random: RandomSource
}

export const COMMANDS = ['user create', 'key create', 'help']

const HELP = `Readlater admin commands (all honour DATABASE_URL / DATABASE_AUTH_TOKEN):

  bun server.ts                                             serve the API, OAuth, MCP and web app
  bun server.ts user create --email E --password P          create an account; prints its id
  bun server.ts key create --email E --scopes s1,s2 --label L
                                                            create a personal API key; prints it on the last line
  bun server.ts help                                        this text

Scopes: ${SCOPES.join(', ')}`

class UsageError extends Error {}

function parseFlags(args: string[], allowed: readonly string[]): Record<string, string> {
  const flags: Record<string, string> = {}
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    const match = /^--([a-z]+)(?:=(.*))?$/.exec(arg)
    if (!match || !allowed.includes(match[1]!)) throw new UsageError(`unknown argument "${arg}"`)
    const value = match[2] ?? args[++i]
    if (value === undefined || (match[2] === undefined && value.startsWith('--'))) throw new UsageError(`--${match[1]} needs a value`)
    if (flags[match[1]!] !== undefined) throw new UsageError(`--${match[1]} given twice`)
    flags[match[1]!] = value
  }
  for (const name of allowed) if (flags[name] === undefined) throw new UsageError(`missing --${name}`)
  return flags
}


async function userCreate(args: string[], deps: CliDeps, io: CliIo): Promise<number> {
  const { email, password } = parseFlags(args, ['email', 'password']) as { email: string; password: string }
  if (emailProblem(email.trim())) throw new UsageError(`"${email}" is not an email address`)
  const problem = passwordProblem(password)
  if (problem) throw new UsageError(problem)
  const db = await deps.openDb()
  const now = deps.clock.now()
  const id = uuidv7(now.getTime(), deps.random)
  const result = await insertUser(db, { id, email, passwordHash: await hashPassword(password), createdAt: toTimestamp(now) })
  if (result === 'email-taken') {
    io.err(`error: an account with email ${email.trim().toLowerCase()} already exists`)
    return 1
  }
  io.out(id)
  return 0
}

async function keyCreate(args: string[], deps: CliDeps, io: CliIo): Promise<number> {
  const { email, scopes: rawScopes, label } = parseFlags(args, ['email', 'scopes', 'label']) as Record<'email' | 'scopes' | 'label', string>
  const scopes = [...new Set(rawScopes.split(',').map((s) => s.trim()).filter(Boolean))]
  const unknown = scopes.filter((s) => !isScope(s))
  if (scopes.length === 0) throw new UsageError('--scopes needs at least one scope')
  if (unknown.length > 0) throw new UsageError(`unknown scope ${unknown.map((s) => `"${s}"`).join(', ')}; known: ${SCOPES.join(',')}`)
  const trimmedLabel = label.trim()
  if (trimmedLabel.length === 0 || trimmedLabel.length > 100) throw new UsageError('--label must be 1–100 characters')
  const db = await deps.openDb()
  const user = await findUserByEmail(db, email)
  if (!user) {
    io.err(`error: no account with email ${email.trim().toLowerCase()}`)
    return 1
  }
  const now = deps.clock.now()
  const key = generateApiKey(deps.random)
  await insertApiKey(db, {
    id: uuidv7(now.getTime(), deps.random), userId: user.id, keyHash: hashApiKey(key), prefix: apiKeyDisplayPrefix(key),
    label: trimmedLabel, scopes, createdAt: toTimestamp(now),
  })
  io.out(`Created API key "${trimmedLabel}" for ${user.email} with scopes ${scopes.join(',')}. It is shown only once:`)
  io.out(key)
  return 0
}

/** Runs one admin command. Returns the exit code: 0 done, 1 refused, 2 bad arguments. */
export async function runCli(argv: string[], deps: CliDeps, io: CliIo): Promise<number> {
  const [noun, verb, ...rest] = argv
  try {
    if (noun === 'help' || noun === '--help' || noun === '-h') {
      if (argv.length > 1) throw new UsageError('help takes no arguments')
      io.out(HELP)
      return 0
    }
    if (noun === 'user' && verb === 'create') return await userCreate(rest, deps, io)
    if (noun === 'key' && verb === 'create') return await keyCreate(rest, deps, io)
    throw new UsageError(`unknown command "${[noun, verb].filter(Boolean).join(' ')}"; try: bun server.ts help`)
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`error: ${error.message}`)
      return 2
    }
    throw error
  }
}
