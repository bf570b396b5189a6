import { isScope } from '../../core/auth/scopes.ts'
import { SCOPES } from '../../core/types.ts'
import { rotateSigningKey } from '../oauth/signing-keys.ts'
import { findAccountByEmail } from '../app/accounts.ts'
import { issueApiKey, keyLabelProblem, keysInForce, revokeKey } from '../app/api-keys.ts'
import { parseFlags, UsageError } from './flags.ts'
import type { CliDeps, CliIo } from './cli-deps.ts'
import { noAccount } from './user-commands.ts'

/** `key create --email E --scopes s1,s2 --label L`: prints the key alone on the last line. */
export async function keyCreate(args: string[], deps: CliDeps, io: CliIo): Promise<number> {
  const {
    email,
    scopes: rawScopes,
    label,
  } = parseFlags(args, { required: ['email', 'scopes', 'label'] }) as Record<'email' | 'scopes' | 'label', string>
  const scopes = [
    ...new Set(
      rawScopes
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ]
  const unknown = scopes.filter((s) => !isScope(s))
  if (scopes.length === 0) throw new UsageError('--scopes needs at least one scope')
  if (unknown.length > 0)
    throw new UsageError(`unknown scope ${unknown.map((s) => `"${s}"`).join(', ')}; known: ${SCOPES.join(',')}`)
  const labelProblem = keyLabelProblem(label)
  if (labelProblem) throw new UsageError(`--label: ${labelProblem}`)
  const trimmedLabel = label.trim()
  const db = await deps.openDb()
  const user = await findAccountByEmail({ db }, email)
  if (!user) return noAccount(io, email)
  const { key } = (await issueApiKey(
    { db, clock: deps.clock, random: deps.random },
    { userId: user.id, label: trimmedLabel, scopes: scopes.filter(isScope) },
  ))!
  io.out(`Created API key "${trimmedLabel}" for ${user.email} with scopes ${scopes.join(',')}. It is shown only once:`)
  io.out(key)
  return 0
}

/**
 * `key list --email E`: one tab-separated line per key in force: id, label, scopes, created, last used
 * (`-` when never), and where a connect-issued key came from. Never the key or its hash.
 */
export async function keyList(args: string[], deps: CliDeps, io: CliIo): Promise<number> {
  const flags = parseFlags(args, { required: ['email'] })
  const db = await deps.openDb()
  const user = await findAccountByEmail({ db }, flags.email!)
  if (!user) return noAccount(io, flags.email!)
  const { keys, agentNames: clients } = await keysInForce({ db }, user.id)
  const labels = new Map(keys.map((key) => [key.id, key.label]))
  for (const key of keys) {
    const origin = key.issuedByKeyId
      ? `issued by key "${labels.get(key.issuedByKeyId) ?? key.issuedByKeyId}"`
      : key.issuedByGrantId
        ? `issued by agent "${clients.get(key.issuedByGrantId) ?? key.issuedByGrantId}"`
        : key.connectClient
          ? `connected ${key.connectClient}`
          : 'personal'
    io.out([key.id, key.label, key.scopes.join(','), key.createdAt, key.lastUsedAt ?? '-', origin].join('\t'))
  }
  return 0
}

/** `key revoke --id ID`: the key and every key issued through it (docs/security.md#connect-issued-keys). */
export async function keyRevoke(args: string[], deps: CliDeps, io: CliIo): Promise<number> {
  const flags = parseFlags(args, { required: ['id'] })
  const db = await deps.openDb()
  if (!(await revokeKey({ db, clock: deps.clock }, null, flags.id!))) {
    io.err(`error: no API key in force with id ${flags.id}`)
    return 1
  }
  io.out(`Revoked API key ${flags.id} and the keys issued through it.`)
  return 0
}

/** `signing-key rotate`: a new key signs from now on; the old one verifies until its tokens expire. */
export async function signingKeyRotate(args: string[], deps: CliDeps, io: CliIo): Promise<number> {
  parseFlags(args, {})
  const db = await deps.openDb()
  const { kid, retired } = await rotateSigningKey(db, deps.clock, deps.config.encryptionKey)
  io.out(
    `New signing key ${kid} is active${retired.length ? `; retired ${retired.join(', ')} (in the JWKS until its tokens expire)` : ''}.`,
  )
  return 0
}
