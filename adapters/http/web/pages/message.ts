import { html, type SafeHtml } from '../html.ts'

/** A short page for refusals and failures (forbidden form, missing row, server error). */
export function messagePage(view: { heading: string; text: string; link?: { href: string; label: string } }): SafeHtml {
  return html`<h1>${view.heading}</h1>
<p class="notice">${view.text}</p>
${view.link ? html`<p><a href="${view.link.href}">${view.link.label}</a></p>` : null}`
}
