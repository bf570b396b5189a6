import type { AppDeps } from '../app/deps.ts'
import type { guard } from './guard.ts'
import type { IpLimits } from './ip-limits.ts'

/**
 * What every route module gets: dependencies, the guard plugin (its `auth`, `mcp` and `public` route
 * options, see guard.ts) and the per-IP limits to declare its public endpoints in.
 */
export interface RouteContext {
  deps: AppDeps
  guard: ReturnType<typeof guard>
  ipLimits: IpLimits
}
