import type { AppDeps } from '../app/deps.ts'
import type { BrowserSession } from './browser-session.ts'
import type { guard } from './guard.ts'

/**
 * What every route module gets: dependencies, the guard plugin (its `auth`, `mcp`, `public`, `ipLimit`,
 * and for pages `session`, `signedIn` and `form` route options, see guard.ts), and the browser's session and
 * CSRF cookies (browser-session.ts).
 */
export interface RouteContext {
  deps: AppDeps
  guard: ReturnType<typeof guard>
  browser: BrowserSession
}
