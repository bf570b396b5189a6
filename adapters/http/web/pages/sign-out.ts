import { html, type SafeHtml } from './html.ts'
import { csrfField } from './parts.ts'

/** A confirm form, so a plain link (or a prefetch) never signs anyone out: signing out is a CSRF-checked POST. */
export function signOutPage(view: { csrf: string; email: string }): SafeHtml {
  return html`<h1>Sign out</h1>
<form method="post" action="/sign-out" class="card narrow">
  ${csrfField(view.csrf)}
  <p>You are signed in as <strong>${view.email}</strong>.</p>
  <div class="actions"><button type="submit">Sign out</button> <a href="/">Cancel</a></div>
</form>`
}
