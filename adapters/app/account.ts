import { UnauthorizedError } from '../../core/errors.ts'
import type { Principal } from '../../core/types.ts'
import type { AppDeps } from './deps.ts'
import { findUserById } from '../storage/users.ts'

/** The account a credential acts for (`GET /v1/me`, MCP `whoami`). */
export async function whoAmI(deps: AppDeps, principal: Principal): Promise<{ id: string; email: string }> {
  const user = await findUserById(deps.db, principal.userId)
  if (!user) throw new UnauthorizedError('The account behind this credential no longer exists', true)
  return { id: user.id, email: user.email }
}
