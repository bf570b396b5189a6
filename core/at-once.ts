/**
 * A value now, or a promise of it. The embedded engines (bun:sqlite, and libsql's native binding on Deno and
 * Node) answer a prepared statement synchronously, @libsql/client with a promise. The steps of the list
 * take whichever they get and go on at once when the value is already there, so on an embedded file a list
 * request is answered without a single promise turn (docs/benchmarks.md#answered-at-once). Every other
 * caller simply awaits.
 */
export type MaybePromise<T> = T | Promise<T>

/** Whether `value` is still to come (a promise or any thenable). */
export function isPending<T>(value: MaybePromise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown } | null)?.then === 'function'
}

/** `next(value)`: now when `value` is here, once it settles otherwise (a rejection passes through). */
export function andThen<T, U>(value: MaybePromise<T>, next: (value: T) => MaybePromise<U>): MaybePromise<U> {
  return isPending(value) ? value.then(next) : next(value)
}

/**
 * `run()`, then `next` with its value or `failed` with its failure, whether `run` throws at once or its
 * promise rejects: the try/catch of an async function, for steps that may answer at once. A failure of
 * `next` itself is not given to `failed` (as with `promise.then(next, failed)`).
 */
export function settle<T, U>(
  run: () => MaybePromise<T>,
  next: (value: T) => MaybePromise<U>,
  failed: (error: unknown) => MaybePromise<U>,
): MaybePromise<U> {
  let value: MaybePromise<T>
  try {
    value = run()
  } catch (error) {
    return failed(error)
  }
  return isPending(value) ? value.then(next, failed) : next(value)
}
