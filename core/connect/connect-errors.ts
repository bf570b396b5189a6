import { ConnectError } from '../errors.ts'

/** The `code` values of a ConnectError, which condition yields which is in docs/oauth.md#connect-flow. */
export const CONNECT_ERROR_CODES = [
  'unknown_client',
  'invalid_redirect_uri',
  'invalid_scope',
  'invalid_code',
  'invalid_verifier',
  'client_mismatch',
] as const
export type ConnectErrorCode = (typeof CONNECT_ERROR_CODES)[number]

/** A ConnectError whose code is one of the spec's, checked by the compiler. */
export function connectError(code: ConnectErrorCode, message: string): ConnectError {
  return new ConnectError(code, message)
}
