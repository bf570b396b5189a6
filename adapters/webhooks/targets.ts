import { ValidationError } from '../../core/errors.ts'
import { describeAddressRange, isPublicAddress } from '../enrichment/address-policy.ts'
import { ALLOWED_PORTS, literalAddress } from '../enrichment/guarded-fetch.ts'

/**
 * The URL with the trailing dots of its host removed, parsed again. A resolver reads `localhost.` as
 * `localhost` and `10.1.2.3..` as 10.1.2.3, and URL parsing keeps those dots (it drops only one after an
 * IPv4 address), so the host rules look at the host without them.
 * @see docs/webhooks.md#api
 */
function withoutTrailingDots(url: URL): URL {
  const host = url.hostname.replace(/\.+$/, '')
  if (host === url.hostname) return url
  try {
    return new URL(`${url.protocol}//${host}`)
  } catch {
    throw new ValidationError('url host is not a valid host name')
  }
}

/**
 * The port rule and address check of the guard, for what can be known before any DNS: IP literals and
 * `localhost`, with or without trailing dots. The webhook use cases (adapters/app/webhooks.ts) get it
 * through `AppDeps.webhookTargets`.
 */
export function checkWebhookTarget(given: URL, allowPrivate: boolean): void {
  if (allowPrivate) return
  if (!ALLOWED_PORTS.has(given.port)) {
    throw new ValidationError(`url port ${given.port} is not allowed: webhooks go to ports 80 and 443`)
  }
  const url = withoutTrailingDots(given)
  const literal = literalAddress(url)
  if (literal !== null && !isPublicAddress(literal)) {
    throw new ValidationError(`url points to a non-public address (${describeAddressRange(literal)})`)
  }
  const host = url.hostname.toLowerCase()
  if (host === 'localhost' || host.endsWith('.localhost')) {
    throw new ValidationError('url points to this machine (localhost)')
  }
}
