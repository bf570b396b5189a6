import { SCOPE_DESCRIPTIONS } from '../../../../core/auth/scope-descriptions.ts'
import { SCOPES } from '../../../../core/types.ts'
import { html, type SafeHtml } from './html.ts'
import type { ApiKeyRow } from '../../../storage/api-keys.ts'
import type { ConnectedAgent } from '../../../storage/oauth-grants.ts'
import { csrfField, errorNotice, timeOf } from './parts.ts'
import type { ImportDto } from '../../../app/imports.ts'
import { importExportSections } from './import-export.ts'
import { webhooksSection, type WebhookFormState, type WebhookPanel } from './settings-webhooks.ts'

export interface SettingsView {
  csrf: string
  email: string
  keys: ApiKeyRow[]
  agents: ConnectedAgent[]
  /** A key just created: shown here once, in full, and stored nowhere in clear. */
  newKey?: { key: string; label: string } | null
  notice?: string | null
  /** The create-key form as submitted, when it is shown again with an error. */
  form?: { label: string; scopes: string[]; error: string } | null
  /** Key id → the label of the key or the name of the agent that issued it (connect flow). */
  issuedBy?: ReadonlyMap<string, string>
  /** When someone last tried to sign up with this account's email (shown for 30 days). */
  signupAttemptedAt?: string | null
  /** Why "Delete account" was refused. */
  deleteError?: string | null
  /** The person's imports, newest first. */
  imports?: ImportDto[]
  /** Why "Import" was refused. */
  importError?: string | null
  /** The bookmarklet for this server (pages/save.ts). */
  bookmarklet?: string
  /** The person's webhooks, oldest first, each with its newest deliveries. */
  webhooks?: WebhookPanel[]
  /** What the webhook form just did: the new secret, the refused form, or the test's outcome. */
  webhookState?: WebhookFormState
  /** Bytes of the archived images of the person's items. */
  imageBytes?: number
}

/** Megabytes of a million bytes, one decimal: "0 MB", "0.1 MB" for anything under it, "12.3 MB". */
export function megabytes(bytes: number): string {
  if (bytes <= 0) return '0 MB'
  return `${Math.max(0.1, bytes / 1_000_000).toFixed(1)} MB`
}

const scopeList = (scopes: readonly string[]): SafeHtml =>
  html`<ul class="scopes">${scopes.map((scope) => html`<li><code>${scope}</code></li>`)}</ul>`

function clientOf(key: ApiKeyRow, issuedBy: ReadonlyMap<string, string>): SafeHtml {
  const issuer = issuedBy.get(key.id)
  const origin = issuer === undefined ? null : html`<br><span class="muted">issued by ${issuer}</span>`
  if (!key.connectClient && !key.deviceHint) return html`<span class="muted">personal</span>${origin}`
  return html`${key.connectClient ?? ''}${key.connectClient && key.deviceHint ? ' · ' : ''}${key.deviceHint ?? ''}${origin}`
}

function keyTable(csrf: string, keys: ApiKeyRow[], issuedBy: ReadonlyMap<string, string>): SafeHtml {
  if (keys.length === 0) return html`<p class="muted">No API keys yet.</p>`
  return html`<div class="table-wrap"><table class="rows">
<thead><tr><th scope="col">Label</th><th scope="col">Scopes</th><th scope="col">Prefix</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Client</th><th scope="col"><span class="visually-hidden">Action</span></th></tr></thead>
<tbody>
${keys.map(
  (key) => html`<tr>
  <td data-label="Label">${key.label}</td>
  <td data-label="Scopes">${scopeList(key.scopes)}</td>
  <td data-label="Prefix"><code>${key.prefix}…</code></td>
  <td data-label="Created">${timeOf(key.createdAt)}</td>
  <td data-label="Last used">${timeOf(key.lastUsedAt)}</td>
  <td data-label="Client">${clientOf(key, issuedBy)}</td>
  <td><form method="post" action="/settings/api-keys/${key.id}/revoke">${csrfField(csrf)}<button type="submit" class="danger">Revoke</button></form></td>
</tr>`,
)}
</tbody>
</table></div>`
}

function agentTable(csrf: string, agents: ConnectedAgent[]): SafeHtml {
  if (agents.length === 0)
    return html`<p class="muted">No agents are connected. An AI agent or MCP client that you allow appears here.</p>`
  return html`<div class="table-wrap"><table class="rows">
<thead><tr><th scope="col">Client</th><th scope="col">Scopes</th><th scope="col">Granted</th><th scope="col">Last used</th><th scope="col"><span class="visually-hidden">Action</span></th></tr></thead>
<tbody>
${agents.map(
  (agent) => html`<tr>
  <td data-label="Client">${agent.clientName}</td>
  <td data-label="Scopes">${scopeList(agent.scopes)}</td>
  <td data-label="Granted">${timeOf(agent.createdAt)}</td>
  <td data-label="Last used">${timeOf(agent.lastUsedAt)}</td>
  <td><form method="post" action="/settings/agents/${agent.grantId}/revoke">${csrfField(csrf)}<button type="submit" class="danger">Revoke</button></form></td>
</tr>`,
)}
</tbody>
</table></div>`
}

/** The bookmarklet, to drag to the bookmarks bar, and the phone's share sheet (docs/web.md#save-from-anywhere). */
function saveAnywhere(code: string): SafeHtml {
  return html`<section aria-labelledby="save-anywhere">
<h2 id="save-anywhere">Save from anywhere</h2>
<div class="card">
  <p>Drag this link to your bookmarks bar, then click it on any page to save that page: <a class="button secondary bookmarklet" href="${code}">Save to Readlater</a></p>
  <details><summary>The bookmarklet’s code</summary><code class="secret">${code}</code></details>
  <p class="muted">On Android, install this web app (your browser’s “Add to Home screen” or “Install app”) and Readlater appears in the share sheet of every app. Either way you confirm with one click: nothing is saved without it.</p>
</div>
</section>`
}

/**
 * Labels "API keys", "Label", one checkbox per scope string, "Create key", "Connected agents", "Revoke",
 * "Webhooks" (settings-webhooks.ts), "Import", the "Export" links, "Sign out other sessions", "Delete
 * account" (docs/web.md#pages).
 */
export function settingsPage(view: SettingsView): SafeHtml {
  const checked = new Set(view.form?.scopes ?? [])
  return html`<h1>Settings</h1>
<p class="muted">Signed in as ${view.email}.</p>
${view.imageBytes === undefined ? null : html`<p class="muted" id="storage">Storage: ${megabytes(view.imageBytes)} of archived images</p>`}
${view.notice ? html`<p class="notice" role="status">${view.notice}</p>` : null}
${view.signupAttemptedAt ? html`<p class="notice" role="status">Someone tried to create an account with your email on ${timeOf(view.signupAttemptedAt)}. Nothing changed for your account; if it was not you, you need not do anything.</p>` : null}
<section aria-labelledby="api-keys">
<h2 id="api-keys">API keys</h2>
${
  view.newKey
    ? html`<div class="card new-key" role="status">
  <p><strong>New API key “${view.newKey.label}”.</strong> Copy it now: it is shown only this once.</p>
  <code id="new-api-key" class="secret">${view.newKey.key}</code>
</div>`
    : null
}
<form method="post" action="/settings/api-keys" class="card">
  ${errorNotice(view.form?.error)}
  ${csrfField(view.csrf)}
  <label for="key-label">Label</label>
  <input id="key-label" name="label" type="text" required maxlength="100" value="${view.form?.label ?? ''}" placeholder="e.g. laptop script">
  <fieldset>
    <legend>Scopes</legend>
    <div class="scope-grid">
    ${SCOPES.map((scope, i) => html`<div class="check"><input type="checkbox" id="scope-${i}" name="scope" value="${scope}" aria-describedby="scope-${i}-hint"${checked.has(scope) ? html` checked` : null}><label for="scope-${i}">${scope}</label><span id="scope-${i}-hint" class="muted">${SCOPE_DESCRIPTIONS[scope]}</span></div>`)}
    </div>
  </fieldset>
  <div class="actions"><button type="submit">Create key</button></div>
</form>
${keyTable(view.csrf, view.keys, view.issuedBy ?? new Map())}
</section>
<section aria-labelledby="connected-agents">
<h2 id="connected-agents">Connected agents</h2>
${agentTable(view.csrf, view.agents)}
</section>
${webhooksSection({ csrf: view.csrf, webhooks: view.webhooks ?? [], ...view.webhookState })}
${view.bookmarklet ? saveAnywhere(view.bookmarklet) : null}
${importExportSections({ csrf: view.csrf, imports: view.imports ?? [], importError: view.importError ?? null })}
<section aria-labelledby="sessions">
<h2 id="sessions">Sessions</h2>
<form method="post" action="/settings/sessions/sign-out-others" class="card">
  ${csrfField(view.csrf)}
  <p class="muted">Signed in somewhere you no longer use? This ends every session but this one.</p>
  <div class="actions"><button type="submit">Sign out other sessions</button></div>
</form>
</section>
<section aria-labelledby="delete-account">
<h2 id="delete-account">Delete account</h2>
<form method="post" action="/settings/delete-account" class="card">
  ${errorNotice(view.deleteError)}
  ${csrfField(view.csrf)}
  <p>This deletes your account and everything in it: saved items, folders, API keys and connected agents. It cannot be undone.</p>
  <label for="delete-password">Password</label>
  <input id="delete-password" name="password" type="password" autocomplete="current-password" required>
  <div class="actions"><button type="submit" class="danger">Delete account</button></div>
</form>
</section>`
}
