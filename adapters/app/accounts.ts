import { uuidv7 } from '../../core/ids.ts'
import { toTimestamp } from '../../core/time.ts'
import type { Clock, RandomSource } from '../../core/types.ts'
import type { Database } from '../storage/open-database.ts'
import { insertUser } from '../storage/users.ts'
import { hashPassword } from './passwords.ts'

export type CreatedAccount = { kind: 'created'; id: string } | { kind: 'email-taken' }

/**
 * Creates an account (the web sign-up and the admin CLI). The password is hashed whether or not the email
 * is taken, so both outcomes cost the same (docs/security.md#sign-up-and-sign-in). The caller checks the
 * email and password rules first (`emailProblem`, `passwordProblem`).
 */
export async function createAccount(
  deps: { db: Database; clock: Clock; random: RandomSource },
  input: { email: string; password: string },
): Promise<CreatedAccount> {
  const now = deps.clock.now()
  const id = uuidv7(now.getTime(), deps.random)
  const result = await insertUser(deps.db, {
    id,
    email: input.email,
    passwordHash: await hashPassword(input.password),
    createdAt: toTimestamp(now),
  })
  return result === 'created' ? { kind: 'created', id } : { kind: 'email-taken' }
}
