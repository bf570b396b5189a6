import type { AppDeps } from '../app/deps.ts'
import type { guard } from './guard.ts'

/**
 * What every route module gets: dependencies and the guard plugin (its `auth`, `mcp`, `public` and
 * `ipLimit` route options, see guard.ts).
 */
export interface RouteContext {
  deps: AppDeps
  guard: ReturnType<typeof guard>
}
