import { CONNECT_ERROR_CODES, ConnectError } from '../errors.ts'

// The codes live beside ConnectError in core/errors.ts, whose error table names them as the wire field's values.
export { CONNECT_ERROR_CODES }
export type ConnectErrorCode = (typeof CONNECT_ERROR_CODES)[number]

/** A ConnectError whose code is one of the spec's, checked by the compiler. */
export function connectError(code: ConnectErrorCode, message: string): ConnectError {
  return new ConnectError(code, message)
}
