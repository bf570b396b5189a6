import { Webhook } from 'standardwebhooks'
import { DELIVERY_TIMEOUT_MS } from '../../core/webhooks/retry-schedule.ts'
import {
  cancelBody,
  checkedAddress,
  FetchFailedError,
  FetchRefusedError,
  addressFetcher,
  parseTarget,
  untilAbort,
  type GuardedFetchOptions,
} from '../enrichment/guarded-fetch.ts'

/** Where and how messages go out: the enrichment address guard's options, and the User-Agent. */
export type SendOptions = Pick<GuardedFetchOptions, 'allowPrivate' | 'userAgent' | 'lookup' | 'fetchAddress' | 'ca'> & {
  timeoutMs?: number
}

/** One message, signed with the webhook's secret (`whsec_…`). */
export interface OutgoingMessage {
  id: string
  url: string
  secret: string
  body: string
}

export type SendOutcome =
  | { delivered: true; responseStatus: number }
  | { delivered: false; responseStatus: number | null; error: string; refused: boolean }

/**
 * The Standard Webhooks headers of one attempt: the message id (the same on every attempt), the attempt's
 * time in Unix seconds, and `v1,` + base64 HMAC-SHA256 of `id.timestamp.body` keyed with the secret's bytes.
 * Signed with the `standardwebhooks` package, the reference implementation receivers verify with.
 */
export function signatureHeaders(message: Omit<OutgoingMessage, 'url'>, at: Date): Record<string, string> {
  return {
    'webhook-id': message.id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(message.secret).sign(message.id, at, message.body),
  }
}

/**
 * One attempt (docs/webhooks.md#delivery): POST the signed body through the address guard (http(s) only,
 * every DNS answer public unless ENRICH_ALLOW_PRIVATE=1, the connection pinned to the checked address),
 * 10 s for the whole exchange, redirects not followed. Delivered on 2xx; anything else is a failure, a
 * refusal by the guard a final one. Never throws; errors name the host and the reason, never the URL's
 * path or query (they may carry the receiver's token).
 */
export async function sendMessage(message: OutgoingMessage, at: Date, options: SendOptions): Promise<SendOutcome> {
  const timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS
  const signal = AbortSignal.timeout(timeoutMs)
  let host = '?'
  try {
    const url = parseTarget(message.url)
    host = url.host
    const address = await checkedAddress(url, options, signal)
    const init: RequestInit = {
      method: 'POST',
      redirect: 'manual',
      credentials: 'omit',
      signal,
      headers: {
        'content-type': 'application/json',
        'user-agent': options.userAgent,
        ...signatureHeaders(message, at),
      },
      body: message.body,
    }
    const response = await untilAbort(addressFetcher(options)(url, address, init), signal)
    // The answer's body means nothing to us: not read, so a receiver cannot make us hold megabytes.
    await cancelBody(response)
    if (response.status >= 200 && response.status <= 299) return { delivered: true, responseStatus: response.status }
    const redirect = response.status >= 300 && response.status <= 399
    return {
      delivered: false,
      responseStatus: response.status,
      error: redirect
        ? `${host} answered HTTP ${response.status}; redirects are not followed`
        : `${host} answered HTTP ${response.status}`,
      refused: false,
    }
  } catch (error) {
    if (error instanceof FetchRefusedError)
      return { delivered: false, responseStatus: null, error: error.message, refused: true }
    if (signal.aborted) {
      return {
        delivered: false,
        responseStatus: null,
        error: `${host} did not answer within ${timeoutMs / 1000} s`,
        refused: false,
      }
    }
    const dns = error instanceof FetchFailedError && error.reason === 'dns'
    return {
      delivered: false,
      responseStatus: null,
      error: dns ? `DNS lookup failed for ${host}` : `Could not connect to ${host}`,
      refused: false,
    }
  }
}
