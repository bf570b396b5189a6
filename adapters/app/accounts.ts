import { uuidv7 } from '../../core/ids.ts'
import { toTimestamp } from '../../core/time.ts'
import type { Clock, RandomSource } from '../../core/types.ts'
import type { Database } from '../storage/open-database.ts'
import { deleteAccount as deleteAccountRows } from '../storage/delete-account.ts'
import {
  findUserByEmail,
  findUserById,
  insertUser,
  listUsersWithItemCounts,
  markSignupAttempt,
  setPasswordHashEndingSessions,
  type UserRow,
} from '../storage/users.ts'
import { hashPassword, verifyPassword } from './passwords.ts'

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

type Db = { db: Database }

/** The account with this email (compared case-insensitively), or null. */
export function findAccountByEmail(deps: Db, email: string): Promise<UserRow | null> {
  return findUserByEmail(deps.db, email)
}

/** Every account with how many items it holds, oldest first (the admin CLI's `user list`). */
export function listAccounts(deps: Db): ReturnType<typeof listUsersWithItemCounts> {
  return listUsersWithItemCounts(deps.db)
}

/**
 * Sets a new password (checked with `passwordProblem` by the caller) and ends every web session of the
 * person; returns how many ended.
 */
export async function changePassword(deps: Db, userId: string, password: string): Promise<number> {
  return setPasswordHashEndingSessions(deps.db, userId, await hashPassword(password))
}

/**
 * Deletes the account and everything in it (docs/operations.md#deleting-an-account); false when there is
 * no such account.
 */
export function deleteAccount(deps: Db, userId: string): Promise<boolean> {
  return deleteAccountRows(deps.db, userId)
}

/**
 * Records that someone tried to sign up with a taken email, for its owner's settings page
 * (docs/security.md#sign-up-and-sign-in); returns the owner's id (null if none).
 */
export function recordSignupAttempt(deps: { db: Database; clock: Clock }, email: string): Promise<string | null> {
  return markSignupAttempt(deps.db, email, toTimestamp(deps.clock.now()))
}

/**
 * Deletes the person's account and everything in it when `password` is theirs (the settings page); false,
 * and nothing deleted, when it is not.
 */
export async function deleteAccountWithPassword(deps: Db, userId: string, password: string): Promise<boolean> {
  const user = await findUserById(deps.db, userId)
  if (!user || !(await verifyPassword(user.passwordHash, password))) return false
  await deleteAccountRows(deps.db, user.id)
  return true
}
