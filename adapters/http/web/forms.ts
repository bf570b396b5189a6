export { readForm } from '../body.ts'

/**
 * Where to send a person after signing in: only a path on this site. `//evil.com` and `/\evil.com` are
 * protocol-relative to browsers, and browsers drop tabs and newlines inside URLs (`/\t/evil.com` becomes
 * `//evil.com`), so any of those, or anything that resolves to another origin, falls back to `/`.
 * The value is otherwise returned untouched (non-ASCII percent-encoded), so an OAuth authorize URL comes
 * back byte for byte.
 */
export function safeNext(next: string | null | undefined, appUrl: string): string {
  if (!next || next[0] !== '/' || next[1] === '/' || next[1] === '\\') return '/'
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0020\u007f]/.test(next)) return '/'
  const origin = new URL(appUrl).origin
  try {
    if (new URL(next, origin).origin !== origin) return '/'
    // A `Location` header holds bytes, not text: non-ASCII (`/。x`) is percent-encoded as UTF-8, which a
    // browser reads back as the same path. A lone surrogate cannot be encoded and falls back to `/`.
    return next.replace(/[^\x21-\x7e]+/g, (run) => encodeURIComponent(run))
  } catch {
    return '/'
  }
}

/** `/sign-in?next=…`, keeping `/` readable in the query as browsers and people expect. */
export function signInPath(next: string): string {
  return next === '/' ? '/sign-in' : `/sign-in?next=${encodeURIComponent(next).replace(/%2F/g, '/')}`
}
