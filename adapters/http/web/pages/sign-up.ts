import { html, type SafeHtml } from './html.ts'
import { MIN_PASSWORD_LENGTH } from '../../../../core/auth/passwords.ts'
import { csrfField, errorNotice } from './parts.ts'

export interface SignUpView {
  csrf: string
  next: string
  email?: string
  error?: string | null
}

/** "Email", "Password", "Create account" are the contract's accessible names (docs/web.md#pages). */
export function signUpPage(view: SignUpView): SafeHtml {
  return html`<h1>Create account</h1>
<form method="post" action="/sign-up" class="card narrow">
  ${errorNotice(view.error)}
  ${csrfField(view.csrf)}
  <input type="hidden" name="next" value="${view.next}">
  <label for="email">Email</label>
  <input id="email" name="email" type="email" autocomplete="email" required value="${view.email ?? ''}">
  <label for="password">Password</label>
  <input id="password" name="password" type="password" autocomplete="new-password" required minlength="${MIN_PASSWORD_LENGTH}" aria-describedby="password-hint">
  <p id="password-hint" class="muted">At least ${MIN_PASSWORD_LENGTH} characters.</p>
  <div class="actions"><button type="submit">Create account</button></div>
</form>
<p class="muted">Already have an account? <a href="/sign-in${view.next === '/' ? '' : `?next=${encodeURIComponent(view.next)}`}">Sign in</a>.</p>`
}

export function signUpClosedPage(): SafeHtml {
  return html`<h1>Sign-up is closed</h1>
<p class="notice">This Readlater server does not take new accounts. Ask its administrator for one.</p>
<p><a href="/sign-in">Sign in</a> if you already have an account.</p>`
}
