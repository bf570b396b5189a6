import { html, type SafeHtml } from './html.ts'

/** The hidden CSRF field every form carries (double-submit; see ../../browser-session.ts). */
export const csrfField = (token: string): SafeHtml => html`<input type="hidden" name="csrf" value="${token}">`

/** An RFC 3339 timestamp as a short UTC time, machine-readable in `datetime`. */
export function timeOf(iso: string | null): SafeHtml {
  if (!iso) return html`<span class="muted">never</span>`
  // The date and the time may wrap apart in a narrow table cell; the time keeps its zone.
  return html`<time datetime="${iso}">${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC</time>`
}

export const errorNotice = (error: string | null | undefined): SafeHtml | null =>
  error ? html`<p class="error" role="alert">${error}</p>` : null
