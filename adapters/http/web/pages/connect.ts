import { SCOPE_DESCRIPTIONS } from '../../../../core/auth/scope-descriptions.ts'
import type { ConnectGrant } from '../../../../core/connect/connect-request.ts'
import type { ConnectClient } from '../../../../core/types.ts'
import { destinationOf } from './consent.ts'
import { html, type SafeHtml } from './html.ts'
import { csrfField } from './parts.ts'

/** The connect clients by the names a person knows them by; the Firefox build is the same client. */
export const CONNECT_CLIENT_NAMES: Readonly<Record<ConnectClient, string>> = {
  'chrome-extension': 'Readlater for Chrome',
  raycast: 'Raycast',
}

export interface ConnectConsentView {
  /** The checked request, carried in hidden fields and checked again when the form comes back. */
  grant: ConnectGrant
  state: string | null
  csrf: string
}

/**
 * The connect page's consent (docs/oauth.md#the-connect-page, docs/web.md#pages): which client asks, the
 * name its key will have in settings and the device it says it is on, exactly the requested scopes with
 * their descriptions, where the answer goes (so a look-alike gives itself away), and "Allow" / "Deny" in
 * one POST form. Asked every time; never framed (HTML_HEADERS).
 */
export function connectConsentPage({ grant, state, csrf }: ConnectConsentView): SafeHtml {
  const name = CONNECT_CLIENT_NAMES[grant.client]
  const field = (fieldName: string, value: string | null) =>
    value === null ? null : html`<input type="hidden" name="${fieldName}" value="${value}">`
  return html`<h1>Connect ${name} to your account?</h1>
<div class="card narrow">
  <p><strong>${name}</strong> is asking for an API key of its own to your Readlater account. It will be able to:</p>
  <ul aria-label="Requested permissions">
    ${grant.scopes.map((scope) => html`<li><code>${scope}</code>: ${SCOPE_DESCRIPTIONS[scope]}</li>`)}
  </ul>
  <p>The key will be named <strong>${grant.label}</strong>${grant.deviceHint === null ? null : html`, for the device <strong>${grant.deviceHint}</strong>`}. It is listed under API keys in Settings, where you can revoke it at any time.</p>
  <p class="muted">After you answer you will be sent to <code>${destinationOf(grant.redirectUri)}</code>.</p>
  <form method="post" action="/connect">
    ${csrfField(csrf)}
    ${field('client', grant.client)}
    ${field('redirectUri', grant.redirectUri)}
    ${field('codeChallenge', grant.codeChallenge)}
    ${field('codeChallengeMethod', 'S256')}
    ${field('scopes', grant.scopes.join(','))}
    ${field('label', grant.label)}
    ${field('deviceHint', grant.deviceHint)}
    ${field('state', state)}
    <div class="actions">
      <button type="submit" name="decision" value="allow">Allow</button>
      <button type="submit" name="decision" value="deny" class="secondary">Deny</button>
    </div>
  </form>
</div>`
}
