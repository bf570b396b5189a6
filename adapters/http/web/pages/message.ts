import { HTML_HEADERS, layout } from './layout.ts'
import { html, type SafeHtml } from './html.ts'

/** A short page for refusals and failures (forbidden form, missing row, server error). */
export function messagePage(view: { heading: string; text: string; link?: { href: string; label: string } }): SafeHtml {
  return html`<h1>${view.heading}</h1>
<p class="notice">${view.text}</p>
${view.link ? html`<p><a href="${view.link.href}">${view.link.label}</a></p>` : null}`
}

/** The page a person gets past a per-IP limit on sign-in, sign-up or authorization (docs/api.md#rate-limits). */
export function tooManyAttemptsPage(message: string): Response {
  const body = messagePage({ heading: 'Too many attempts', text: `${message}.` })
  return new Response(layout({ title: 'Too many attempts', body }), { status: 429, headers: HTML_HEADERS })
}
