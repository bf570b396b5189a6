/**
 * Runs tasks one after another, each only once the one before has settled: a read and the write that
 * depends on it (a tab's result checked, then replaced) are never split by another task of the same queue.
 * storage.session has no compare-and-set, and the popup's refresh of a saved item once raced a new save of
 * the same tab: it read the old result, the new save wrote "Saving…", and the refresh wrote the old result
 * back, so the new save's outcome looked stale and was never shown (docs/extension.md#the-popup).
 */
export function inTurn(): <T>(task: () => Promise<T>) => Promise<T> {
  let last: Promise<unknown> = Promise.resolve()
  return <T>(task: () => Promise<T>): Promise<T> => {
    const turn = last.then(task, task)
    last = turn.catch(() => {})
    return turn
  }
}
