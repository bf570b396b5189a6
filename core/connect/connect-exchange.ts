import type { ConnectClient } from '../types.ts'
import { toTimestamp } from '../time.ts'
import { isConnectClient } from './connect-clients.ts'
import { connectError } from './connect-errors.ts'
import { verifyPkceS256 } from '../oauth/pkce.ts'

/** The part of a stored connect code the exchange checks. */
export interface SpentConnectCode {
  client: string
  codeChallenge: string
}

/**
 * The client named on POST /connect/exchange. Checked before the code is looked at, so a request that
 * could never succeed leaves the code untouched.
 * @see docs/oauth.md#connect-flow
 */
export function checkExchangeClient(client: string): ConnectClient {
  if (!isConnectClient(client))
    throw connectError('unknown_client', 'Unknown client: it must be "chrome-extension" or "raycast"')
  return client
}

/**
 * Decides an exchange once its code has been spent (atomically, by the storage adapter): `null` means no
 * live code matched. Every failure after that point leaves the code spent, so a stolen code gives its
 * holder one guess at the verifier, not many (docs/oauth.md#connect-flow: a wrong verifier spends the code).
 * Messages never repeat the code or the verifier.
 * @see docs/oauth.md#connect-flow
 */
export function checkExchange<Code extends SpentConnectCode>(
  spent: Code | null,
  client: ConnectClient,
  codeVerifier: string,
): asserts spent is Code {
  if (spent === null)
    throw connectError(
      'invalid_code',
      'The code is unknown, already used or expired (codes last 5 minutes); start the connection again',
    )
  if (spent.client !== client)
    throw connectError('client_mismatch', 'The code was issued to another client; it is now spent')
  if (!verifyPkceS256(codeVerifier, spent.codeChallenge)) {
    throw connectError(
      'invalid_verifier',
      'codeVerifier does not match the codeChallenge given at authorize; the code is now spent',
    )
  }
}

/** What the exchange needs from storage: spending a live code atomically (test/storage/protocol-ports.test.ts). */
export interface ConnectCodeStore<Code extends SpentConnectCode> {
  /** Marks a live (unused, unexpired at `at`) code used and returns it; exactly one of racing callers gets it. */
  spendConnectCode(codeHash: string, at: string): Promise<Code | null>
}

/**
 * The exchange's rules in order (docs/oauth.md#connect-flow): an unknown client is refused before the code
 * is touched; otherwise the code is spent first, then checked, so every later failure leaves it spent.
 */
export async function exchangeConnectCode<Code extends SpentConnectCode>(
  store: ConnectCodeStore<Code>,
  request: { client: string; codeHash: string; codeVerifier: string },
  now: Date,
): Promise<{ spent: Code; client: ConnectClient }> {
  const client = checkExchangeClient(request.client)
  const spent = await store.spendConnectCode(request.codeHash, toTimestamp(now))
  checkExchange(spent, client, request.codeVerifier)
  return { spent, client }
}
