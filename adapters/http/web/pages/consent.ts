import { SCOPE_DESCRIPTIONS, type OAuthScope } from '../../../../core/oauth/oauth-scopes.ts'
import { html, type SafeHtml } from './html.ts'
import { csrfField } from './parts.ts'

export interface ConsentView {
  clientName: string
  scopes: readonly OAuthScope[]
  /** Where the answer goes, shown so a look-alike client name gives itself away. */
  redirectUri: string
  /** `{base}/mcp` or `{base}`. */
  forMcp: boolean
  /** For a client known by its metadata-document URL: the host that vouches for its name. */
  publishedBy?: string | null
  ticket: string
  csrf: string
}

/** Where an answer goes, as a person can check it: the redirect URI's scheme and host (or path, for `app:path`). */
export function destinationOf(redirectUri: string): string {
  const url = new URL(redirectUri)
  return url.host ? `${url.protocol}//${url.host}` : `${url.protocol}${url.pathname}`
}

/**
 * The consent page (docs/oauth.md#authorize-and-consent, docs/web.md#pages): the client's name, exactly the requested scopes with their
 * descriptions, and "Allow" / "Deny" in one POST form. Asked every time; never framed (HTML_HEADERS).
 */
export function consentPage(view: ConsentView): SafeHtml {
  return html`<h1>Allow ${view.clientName} to use your account?</h1>
<div class="card narrow">
  <p><strong>${view.clientName}</strong> is asking for access to your Readlater ${view.forMcp ? 'account through its MCP server' : 'account'}. It will be able to:</p>
  <ul aria-label="Requested permissions">
    ${view.scopes.map((scope) => html`<li><code>${scope}</code>: ${SCOPE_DESCRIPTIONS[scope]}</li>`)}
  </ul>
  ${view.publishedBy ? html`<p class="muted">This application describes itself at <code>${view.publishedBy}</code>.</p>` : null}
  <p class="muted">After you answer you will be sent to <code>${destinationOf(view.redirectUri)}</code>. You can revoke this access at any time in Settings.</p>
  <form method="post" action="/api/auth/oauth2/consent">
    ${csrfField(view.csrf)}
    <input type="hidden" name="ticket" value="${view.ticket}">
    <div class="actions">
      <button type="submit" name="decision" value="allow">Allow</button>
      <button type="submit" name="decision" value="deny" class="secondary">Deny</button>
    </div>
  </form>
</div>`
}
