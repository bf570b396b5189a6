import type { ImportDto } from '../../../app/imports.ts'
import { html, type SafeHtml } from './html.ts'
import { csrfField, errorNotice, timeOf } from './parts.ts'

const FORMAT_NAMES: Record<ImportDto['format'], string> = {
  pocket: 'Pocket',
  netscape: 'Browser bookmarks',
  instapaper: 'Instapaper',
  omnivore: 'Omnivore',
  wallabag: 'wallabag',
  readlater: 'Readlater',
  urls: 'URL list',
}

const summaryOf = (job: ImportDto): string => `${job.created} created, ${job.updated} updated, ${job.skipped} skipped`

/**
 * Settings' "Import" and "Export" sections (docs/import-export.md#web): a file input and the button
 * "Import", the recent imports with their state, and one "Export" link per format (the Markdown one is the
 * highlights alone, docs/import-export.md#markdown-export), then the EPUB books of the unread and of all
 * items (docs/import-export.md#epub).
 */
export function importExportSections(view: {
  csrf: string
  imports: ImportDto[]
  importError?: string | null
}): SafeHtml {
  return html`<section aria-labelledby="import">
<h2 id="import">Import</h2>
<form method="post" action="/settings/import" enctype="multipart/form-data" class="card">
  ${errorNotice(view.importError)}
  ${csrfField(view.csrf)}
  <p class="muted">Pocket (its CSV or zip), browser bookmarks, Instapaper, Omnivore, wallabag, a Readlater export, or a list of URLs one per line: up to 50 MiB. Saved times, read state, folders and tags are kept; links you already saved are merged.</p>
  <label for="import-file">File</label>
  <input id="import-file" name="file" type="file" required>
  <div class="actions"><button type="submit">Import</button></div>
</form>
${
  view.imports.length === 0
    ? null
    : html`<div class="table-wrap"><table class="rows">
<thead><tr><th scope="col">Started</th><th scope="col">From</th><th scope="col">State</th><th scope="col">Result</th></tr></thead>
<tbody>
${view.imports.slice(0, 10).map(
  (job) => html`<tr>
  <td data-label="Started"><a href="/settings/imports/${job.id}">${timeOf(job.createdAt)}</a></td>
  <td data-label="From">${FORMAT_NAMES[job.format]}</td>
  <td data-label="State">${job.status === 'done' ? 'Done' : job.status === 'failed' ? 'Failed' : `${job.processed} of ${job.total}`}</td>
  <td data-label="Result">${job.status === 'done' ? summaryOf(job) : ''}</td>
</tr>`,
)}
</tbody>
</table></div>`
}
</section>
<section aria-labelledby="export">
<h2 id="export">Export</h2>
<p>Your whole library, every field of every item with its folder:</p>
<ul class="exports">
  <li><a href="/settings/export?format=json" download>Export as JSON</a> <span class="muted">(everything, highlights included; imports back here)</span></li>
  <li><a href="/settings/export?format=netscape" download>Export as bookmarks (HTML)</a> <span class="muted">(for browsers, Pinboard, Raindrop)</span></li>
  <li><a href="/settings/export?format=csv" download>Export as CSV</a> <span class="muted">(for spreadsheets)</span></li>
  <li><a href="/settings/export?format=markdown" download>Export as Markdown (highlights)</a> <span class="muted">(a zip of notes, one per article you highlighted, for Obsidian or Logseq)</span></li>
</ul>
<p>A book for your e-reader, one chapter per article, its images included (the newest 500):</p>
<ul class="exports">
  <li><a href="/settings/export?format=epub&amp;state=unread" download>Export unread as EPUB</a> <span class="muted">(what is left to read)</span></li>
  <li><a href="/settings/export?format=epub&amp;state=all" download>Export all as EPUB</a> <span class="muted">(read and unread)</span></li>
</ul>
</section>`
}

/**
 * One import as it runs: a progress bar, refreshed every second until the job ends (a meta refresh, so it
 * follows the job without JavaScript), then the summary and the entries that could not be imported.
 */
export function importProgressPage(job: ImportDto): SafeHtml {
  const finished = job.status === 'done' || job.status === 'failed'
  return html`<h1>Import from ${FORMAT_NAMES[job.format]}</h1>
<p><a href="/settings">Back to settings</a></p>
<div class="card" role="status" aria-live="polite">
<label for="import-progress">${finished ? (job.status === 'done' ? 'Done' : 'Failed') : 'Importing…'}</label>
<progress id="import-progress" max="${String(Math.max(job.total, 1))}" value="${String(finished && job.total === 0 ? 1 : job.processed)}">${String(job.processed)} of ${String(job.total)}</progress>
<p>${String(job.processed)} of ${String(job.total)} entries${finished ? html`: <strong class="import-summary">${summaryOf(job)}</strong>.` : '.'}</p>
${job.folderNames.length > 0 ? html`<p>Folders: ${job.folderNames.join(', ')}.</p>` : null}
${job.droppedTags.length > 0 ? html`<p class="muted">Tags not kept (they match no tag here): ${job.droppedTags.join(', ')}.</p>` : null}
</div>
${
  job.errors.length === 0
    ? null
    : html`<section aria-labelledby="import-errors"><h2 id="import-errors">Not imported</h2>
<ul class="import-errors">${job.errors.map((error) => html`<li>Line ${String(error.line)}: ${error.message}</li>`)}</ul>
${job.skipped > job.errors.length ? html`<p class="muted">…and ${String(job.skipped - job.errors.length)} more.</p>` : null}
</section>`
}`
}
