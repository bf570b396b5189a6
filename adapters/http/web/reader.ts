import { SCOPES, type Principal } from '../../../core/types.ts'
import type { WebSession } from '../browser-session.ts'

// The reader view's pieces that need nothing of the page machinery in routes.ts (docs/web.md#reader-view).

/** A reading position as the script posts it: a plain decimal from 0 to 1, else null (blank is not 0). */
export function progressOf(value: string | null): number | null {
  if (value === null || !/^(?:\d+(?:\.\d*)?|\.\d+)$/.test(value)) return null
  const progress = Number(value)
  return progress >= 0 && progress <= 1 ? progress : null
}

/** The signed-in person as the app layer knows callers; a session holds every scope, as on the API. */
export const sessionPrincipal = (session: WebSession): Principal => ({
  userId: session.userId,
  scopes: SCOPES,
  credentialId: `session:${session.tokenHash.slice(0, 32)}`,
  kind: 'session',
  connectClient: null,
})
