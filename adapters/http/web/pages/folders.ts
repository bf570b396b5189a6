import type { Folder } from '../../../../core/types.ts'
import type { FolderCounts } from '../../../storage/queue-counts.ts'
import { html, type SafeHtml } from './html.ts'
import { csrfField, errorNotice } from './parts.ts'

export interface FoldersView {
  csrf: string
  folders: Folder[]
  counts: FolderCounts
  notice?: string | null
  /** Why a name was refused, and the form it came from ('new' or a folder id). */
  error?: { form: string; message: string; name: string } | null
}

/**
 * "Manage folders" (docs/web.md#queue): "New folder" / "Create folder", and for each folder "Rename" and
 * "Delete folder" (its items stay, in no folder). A refused name says why beside its form.
 */
export function foldersPage(view: FoldersView): SafeHtml {
  const errorFor = (form: string) => (view.error?.form === form ? view.error : null)
  const created = errorFor('new')
  return html`<h1>Manage folders</h1>
<p><a href="/">Back to your queue</a></p>
${view.notice ? html`<p class="notice" role="status">${view.notice}</p>` : null}
<form method="post" action="/queue/folders" class="card narrow">
  ${errorNotice(created?.message)}
  ${csrfField(view.csrf)}
  <label for="new-folder">New folder</label>
  <div class="row"><input id="new-folder" name="name" type="text" required maxlength="100" value="${created?.name ?? ''}"><button type="submit">Create folder</button></div>
</form>
${
  view.folders.length === 0
    ? html`<p class="muted">No folders yet.</p>`
    : html`<ul class="folder-list">${view.folders.map((f) => {
        const error = errorFor(f.id)
        const count = view.counts.byFolder.get(f.id) ?? 0
        return html`<li class="card narrow">
  <form method="post" action="/queue/folders/${f.id}/rename">
    ${errorNotice(error?.message)}
    ${csrfField(view.csrf)}
    <label for="rename-${f.id}">Rename ${f.name} <span class="muted">(${count} ${count === 1 ? 'item' : 'items'})</span></label>
    <div class="row"><input id="rename-${f.id}" name="name" type="text" required maxlength="100" value="${error?.name ?? f.name}"><button type="submit" class="secondary">Rename</button></div>
  </form>
  <form method="post" action="/queue/folders/${f.id}/delete" class="actions">
    ${csrfField(view.csrf)}
    <button type="submit" class="danger" aria-label="Delete folder ${f.name}">Delete folder</button>
  </form>
</li>`
      })}</ul>`
}`
}
