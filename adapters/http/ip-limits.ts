import { RateLimitExceededError } from '../../core/errors.ts'
import { errorResponse } from './errors.ts'

/** How a route group refuses a client past its per-IP limit, in the group's own format (page, OAuth, API). */
export type IpRefusal = (message: string) => Response

export const IP_LIMIT_WINDOW_SECONDS = 60

/** The API's own refusal past a per-IP limit: the typed 429 body. */
export const apiIpRefusal = (message: string): Response => errorResponse(new RateLimitExceededError(message))

/**
 * The public endpoints that guessable or costly input reaches without a credential, each with its own
 * per-client-IP bucket (`IP_RATE_LIMIT_MAX` per minute, docs/api.md#rate-limits). Route groups declare
 * theirs with `limit` as they are built, with their own refusal; the request handler, which alone sees
 * the socket, counts them before routing.
 */
export class IpLimits {
  readonly #refusals = new Map<string, IpRefusal>()

  limit(method: 'GET' | 'POST', path: string, refuse: IpRefusal): void {
    this.#refusals.set(`${method} ${path}`, refuse)
  }

  /** The refusal of a limited endpoint, or undefined for every other request. */
  match(method: string, path: string): IpRefusal | undefined {
    return this.#refusals.size === 0 ? undefined : this.#refusals.get(`${method} ${path}`)
  }

  /** `METHOD path` of every limited endpoint, for tests and docs. */
  endpoints(): string[] {
    return [...this.#refusals.keys()]
  }
}
