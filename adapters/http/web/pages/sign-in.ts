import { html, type SafeHtml } from './html.ts'
import { csrfField, errorNotice } from './parts.ts'

export interface SignInView {
  csrf: string
  next: string
  email?: string
  error?: string | null
  /** A neutral note shown above the form (after sign-up). */
  notice?: string | null
  signupOpen: boolean
}

/** "Email", "Password", "Sign in" are the contract's accessible names (docs/web.md#pages). The password is never echoed. */
export function signInPage(view: SignInView): SafeHtml {
  return html`<h1>Sign in</h1>
${view.notice ? html`<p class="notice" role="status">${view.notice}</p>` : null}
<form method="post" action="/sign-in" class="card narrow">
  ${errorNotice(view.error)}
  ${csrfField(view.csrf)}
  <input type="hidden" name="next" value="${view.next}">
  <label for="email">Email</label>
  <input id="email" name="email" type="email" autocomplete="username" required value="${view.email ?? ''}">
  <label for="password">Password</label>
  <input id="password" name="password" type="password" autocomplete="current-password" required>
  <div class="actions"><button type="submit">Sign in</button></div>
</form>
${view.signupOpen ? html`<p class="muted">No account yet? <a href="/sign-up${view.next === '/' ? '' : `?next=${encodeURIComponent(view.next)}`}">Create one</a>.</p>` : null}`
}
