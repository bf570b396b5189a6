import { html, type SafeHtml } from './html.ts'
import { csrfField, errorNotice } from './parts.ts'

export interface SaveView {
  csrf: string
  url: string
  title: string | null
  error?: string | null
}

/**
 * `/save?url=…&title=…` (docs/web.md#save-from-anywhere): what a bookmarklet or the share sheet sent, and a
 * "Save" button. A GET never saves: the person confirms with one click.
 */
export function savePage(view: SaveView): SafeHtml {
  return html`<h1>Save to your queue</h1>
<form method="post" action="/save" class="card narrow">
  ${errorNotice(view.error)}
  ${csrfField(view.csrf)}
  ${view.title ? html`<p class="save-title"><strong>${view.title}</strong></p>` : null}
  <label for="save-url">URL</label>
  <input id="save-url" name="url" type="url" required value="${view.url}">
  ${view.title ? html`<input type="hidden" name="title" value="${view.title}">` : null}
  <div class="actions"><button type="submit">Save</button><a class="button secondary" href="/">Go to your queue</a></div>
</form>`
}

/** After saving: where it went, and the way back to the page. */
export function savedPage(view: { url: string; title: string | null; again: boolean }): SafeHtml {
  return html`<h1>Saved</h1>
<p class="notice" role="status">${view.again ? 'Already in your queue: saved again, at the top.' : 'Saved to your queue.'}</p>
<p class="save-title">${view.title ?? view.url}</p>
<div class="actions"><a class="button" href="/">Go to your queue</a>${/^https?:\/\//i.test(view.url) ? html`<a class="button secondary" href="${view.url}" rel="noopener noreferrer">Back to the page</a>` : null}</div>`
}

/**
 * A bookmarklet that opens `/save` for the page the person is on, with its address and title. Written for
 * the settings page, where it is offered as a link to drag to the bookmarks bar.
 */
export function bookmarklet(appUrl: string): string {
  const save = `${appUrl.replace(/\/+$/, '')}/save`
  return `javascript:(function(){window.open('${save}?url='+encodeURIComponent(location.href)+'&title='+encodeURIComponent(document.title),'readlater','width=520,height=480')})()`
}
