import type { Log } from './deps.ts'

/**
 * Error text for the log: drizzle appends bound parameters (user data) to its messages, so they are cut;
 * the driver's own error (its `cause`, e.g. "no such table") is kept, as it names no values.
 */
export function describeFailure(failure: unknown): string {
  if (!(failure instanceof Error)) return 'non-error thrown'
  const text = (error: Error): string => `${error.name}: ${error.message.split('\nparams:')[0]!.slice(0, 500)}`
  return failure.cause instanceof Error ? `${text(failure)} (cause: ${text(failure.cause)})` : text(failure)
}

/**
 * The one step every error boundary takes for a failure it did not expect (a bug, a dead database): one
 * error log line with what failed, never the request's data. The boundary then answers in its own form
 * (a typed 500, an error page, an OAuth `server_error`, an MCP tool error).
 */
export function logUnexpected(log: Log, what: string, failure: unknown, fields: Record<string, unknown> = {}): void {
  log('error', { msg: what, ...fields, error: describeFailure(failure) })
}
