/** Headers that move with every request (its id, the rate-limit counts, the clock), left out of a comparison. */
const MOVING_HEADERS = new Set(['x-request-id', 'ratelimit-remaining', 'ratelimit-reset', 'date'])

/**
 * An answer as a both-ways test compares it (the direct paths against the app: test/http/direct-list.test.ts,
 * test/http/direct-mcp.test.ts): status, body and the headers that do not move, sorted by name.
 */
export async function answerShape(response: Response) {
  return {
    status: response.status,
    body: await response.text(),
    headers: [...response.headers.entries()]
      .filter(([name]) => !MOVING_HEADERS.has(name))
      .sort(([a], [b]) => a.localeCompare(b)),
  }
}

/** The names of an answer's headers but `date`, sorted: two 429s carry the same ones. */
export const headerNames = (response: Response): string[] =>
  [...response.headers.keys()].filter((name) => name !== 'date').sort()
