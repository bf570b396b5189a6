import type { ConnectClient } from '../types.ts'
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
