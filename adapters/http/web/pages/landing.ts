import { html, type SafeHtml } from './html.ts'

/** What a signed-out visitor of `/` sees. */
export function landingPage(view: { signupOpen: boolean }): SafeHtml {
  return html`<h1>Readlater</h1>
<p>Save links from anywhere (browser, Raycast, scripts, AI agents) and read them later, in one queue.</p>
<div class="actions">
  <a class="button" href="/sign-in">Sign in</a>
  ${view.signupOpen ? html`<a class="button secondary" href="/sign-up">Create account</a>` : null}
</div>`
}
