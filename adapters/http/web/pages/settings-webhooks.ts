import type { DeliveryDto, WebhookDto } from '../../../app/webhooks.ts'
import { WEBHOOK_EVENTS } from '../../../../core/webhooks/events.ts'
import { DISABLE_AFTER_FAILURES, MAX_ATTEMPTS } from '../../../../core/webhooks/retry-schedule.ts'
import { html, type SafeHtml } from './html.ts'
import { csrfField, errorNotice, timeOf } from './parts.ts'

/** One webhook as settings lists it, with its newest deliveries (newest first). */
export interface WebhookPanel {
  webhook: WebhookDto
  deliveries: DeliveryDto[]
}

export interface WebhooksView {
  csrf: string
  webhooks: WebhookPanel[]
  /** A webhook just added: its signing secret is in this response only, never shown again. */
  created?: { url: string; secret: string } | null
  /** The add form as submitted, when it is shown again with the reason it was refused. */
  form?: { url: string; events: string[]; error: string } | null
  /** The outcome of "Send test", shown with the webhook it was for. */
  tested?: { webhookId: string; delivery: DeliveryDto } | null
}

/** What the last webhook form did, for the page that answers it. */
export type WebhookFormState = Pick<WebhooksView, 'created' | 'form' | 'tested'>

const eventList = (events: readonly string[]): SafeHtml =>
  html`${events.map((event, i) => html`${i > 0 ? ', ' : ''}<code>${event}</code>`)}`

// A failure's error already names the receiver's status when there was one, and says more than the number.
function responseOf(delivery: DeliveryDto): SafeHtml | string {
  if (delivery.error) return delivery.error
  if (delivery.responseStatus !== null) return `HTTP ${delivery.responseStatus}`
  return html`<span class="muted">none yet</span>`
}

function deliveryTable(deliveries: DeliveryDto[]): SafeHtml {
  if (deliveries.length === 0) return html`<p class="muted">No deliveries yet.</p>`
  return html`<div class="table-wrap"><table class="rows deliveries">
<thead><tr><th scope="col">Type</th><th scope="col">Status</th><th scope="col">Attempts</th><th scope="col">Last attempt</th><th scope="col">Response</th></tr></thead>
<tbody>
${deliveries.map(
  (delivery) => html`<tr>
  <td data-label="Type"><code>${delivery.type}</code></td>
  <td data-label="Status">${delivery.status}</td>
  <td data-label="Attempts">${String(delivery.attempts)}</td>
  <td data-label="Last attempt">${timeOf(delivery.lastAttemptAt)}</td>
  <td data-label="Response">${responseOf(delivery)}</td>
</tr>`,
)}
</tbody>
</table></div>`
}

function testOutcome(delivery: DeliveryDto): SafeHtml {
  if (delivery.status === 'delivered')
    return html`<p class="notice test-outcome" role="status">Test message delivered: the receiver answered HTTP ${String(delivery.responseStatus)}.</p>`
  if (delivery.status === 'failed')
    return html`<p class="error test-outcome" role="alert">Test message failed: ${delivery.error ?? 'no reason given'}.</p>`
  return html`<p class="notice test-outcome" role="status">Test message is still being sent.</p>`
}

// The forms' actions end in a fragment: the answer is the whole settings page, and the browser scrolls back
// to the webhook (or the form) the outcome is shown with.
function webhookCard(csrf: string, panel: WebhookPanel, tested: WebhooksView['tested']): SafeHtml {
  const { webhook, deliveries } = panel
  const headingId = `webhook-${webhook.id}`
  return html`<article class="card webhook" aria-labelledby="${headingId}">
<h3 id="${headingId}">${webhook.url}</h3>
<p class="webhook-events">Events: ${eventList(webhook.events)}</p>
<p class="muted">Added ${timeOf(webhook.createdAt)}</p>
${
  webhook.disabledAt
    ? html`<p class="error"><strong>Disabled</strong> since ${timeOf(webhook.disabledAt)}, after ${String(DISABLE_AFTER_FAILURES)} failed deliveries in a row: no events are sent to it. Deleting it and adding it again starts over.</p>`
    : null
}
${tested && tested.webhookId === webhook.id ? testOutcome(tested.delivery) : null}
<div class="actions">
  <form method="post" action="/settings/webhooks/${webhook.id}/test#${headingId}" class="inline">${csrfField(csrf)}<button type="submit" class="secondary">Send test</button></form>
  <form method="post" action="/settings/webhooks/${webhook.id}/delete" class="inline">${csrfField(csrf)}<button type="submit" class="danger">Delete</button></form>
</div>
<h4>Last deliveries</h4>
${deliveryTable(deliveries)}
</article>`
}

/**
 * Settings' "Webhooks" section (docs/web.md#webhooks): field "Webhook URL", one checkbox per event labelled
 * with the event name, button "Add webhook"; each webhook with "Send test", "Delete" and its last 20
 * deliveries.
 */
export function webhooksSection(view: WebhooksView): SafeHtml {
  const checked = new Set(view.form?.events ?? [])
  return html`<section aria-labelledby="webhooks">
<h2 id="webhooks">Webhooks</h2>
${
  view.created
    ? html`<div class="card new-key" role="status">
  <p><strong>Webhook added for ${view.created.url}.</strong> Copy its signing secret now: it is shown only this once. Your receiver checks each message’s <code>webhook-signature</code> with it.</p>
  <code id="new-webhook-secret" class="secret">${view.created.secret}</code>
</div>`
    : null
}
<form method="post" action="/settings/webhooks#webhooks" class="card">
  ${errorNotice(view.form?.error)}
  ${csrfField(view.csrf)}
  <p class="muted">Readlater POSTs each chosen event to this URL as it happens, signed per Standard Webhooks; a failed delivery is tried up to ${String(MAX_ATTEMPTS)} times over about 17 hours.</p>
  <label for="webhook-url">Webhook URL</label>
  <input id="webhook-url" name="url" type="url" required maxlength="2048" value="${view.form?.url ?? ''}" placeholder="https://example.com/hooks/readlater">
  <fieldset>
    <legend>Events</legend>
    <div class="scope-grid">
    ${WEBHOOK_EVENTS.map((event, i) => html`<div class="check"><input type="checkbox" id="webhook-event-${String(i)}" name="event" value="${event}"${checked.has(event) ? html` checked` : null}><label for="webhook-event-${String(i)}">${event}</label></div>`)}
    </div>
  </fieldset>
  <div class="actions"><button type="submit">Add webhook</button></div>
</form>
${
  view.webhooks.length === 0
    ? html`<p class="muted">No webhooks yet.</p>`
    : view.webhooks.map((panel) => webhookCard(view.csrf, panel, view.tested))
}
</section>`
}
