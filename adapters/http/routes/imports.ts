import { Elysia, t } from 'elysia'
import {
  ImportFormatError,
  ImportNotFoundError,
  RateLimitExceededError,
  UnsupportedMediaTypeError,
} from '../../../core/errors.ts'
import { IMPORT_FORMATS, IMPORT_MAX_BYTES } from '../../../core/import/types.ts'
import { downloadResponse } from '../../app/download.ts'
import { itemEpub } from '../../app/epub.ts'
import { exportDownload, exportRequestOf } from '../../app/export.ts'
import { IMPORT_RETRY_AFTER_S, importFormatOf, importOf, importsOf, startImport } from '../../app/imports.ts'
import type { RouteContext } from '../route-context.ts'
import {
  commonAuthedErrors,
  Errors,
  ExportQuery,
  IdParams,
  ImportList,
  ImportQuery,
  ImportResponse,
} from '../schemas.ts'

/**
 * The media types an import file may come as (docs/import-export.md#imports): the five of the formats,
 * and what browsers and curl send for the same files (Windows names a CSV `application/vnd.ms-excel` and
 * a zip `application/x-zip-compressed`; `application/octet-stream` is any file). The type is a hint:
 * the format is read from the bytes.
 */
const FILE_TYPES = new Set([
  'text/html',
  'text/csv',
  'application/json',
  'application/zip',
  'text/plain',
  'application/x-zip-compressed',
  'application/vnd.ms-excel',
  'text/x-csv',
  'application/octet-stream',
])

const overCap = () =>
  new ImportFormatError(`the file is over the ${IMPORT_MAX_BYTES / 1024 / 1024} MiB limit of an import`)

export const importRoutes = ({ deps, guard }: RouteContext) =>
  new Elysia()
    .use(guard)
    .post(
      '/v1/imports',
      async ({ body, query, request, set, principal }) => {
        const header = request.headers.get('content-type') ?? ''
        const contentType = header.split(';')[0]!.trim().toLowerCase()
        if (!FILE_TYPES.has(contentType))
          throw new UnsupportedMediaTypeError(
            `Content-Type must be one of ${[...FILE_TYPES].join(', ')}, got ${contentType ? `"${contentType.slice(0, 80)}"` : 'none'}`,
          )
        const format = importFormatOf(query.format)
        const created = await startImport(deps, principal, {
          bytes: body as Uint8Array,
          format,
          // Whole, parameters too: a charset decides how text without a byte-order mark is read.
          contentType: header,
        }).catch((error: unknown) => {
          // Too many imports waiting: the person is told when to try again.
          if (error instanceof RateLimitExceededError) set.headers['retry-after'] = String(IMPORT_RETRY_AFTER_S)
          throw error
        })
        set.status = 202
        set.headers.location = `/v1/imports/${created.id}`
        return { import: created }
      },
      {
        query: ImportQuery,
        response: {
          202: ImportResponse,
          ...commonAuthedErrors,
          400: t.Union([Errors.ImportFormatError, Errors.ValidationError]),
          409: Errors.IdempotencyKeyInFlightError,
          415: Errors.UnsupportedMediaTypeError,
          422: Errors.IdempotencyKeyReuseError,
        },
        auth: { scopes: ['saved-items:capture', 'folders:write'], file: { bytes: IMPORT_MAX_BYTES, overCap } },
        detail: {
          summary: 'Import a file',
          description: `The file is the request body (up to 50 MiB): Pocket's CSV (alone or zipped) or older HTML export, browser bookmarks (Netscape HTML, also Raindrop's and Pinboard's), Instapaper's CSV, Omnivore's zip, wallabag's JSON, Readlater's own JSON or CSV export, or a list of URLs one per line. \`format\` (${IMPORT_FORMATS.join(', ')}) is detected from the bytes when absent. The file is read at once, on an import thread within a time budget (30 s) and a memory budget (512 MiB): a file that is no supported format, a broken, oversized (over 200 MiB expanded), overlapping or over-100,000-entry zip, JSON nested deeper than 32 levels, malformed CSV, over 50 MiB or past a budget is 400 ImportFormatError and nothing is written. A person with 3 imports queued or running gets 429 RateLimitExceeded with Retry-After. Otherwise 202 with the queued import; it runs in the background in batches (a crash resumes it, no entry twice): follow it at Location. Entries keep their saved time, read state, folder and tags; a URL already saved is merged (created/updated/skipped counts, errors with their line).`,
          tags: ['Import and export'],
          requestBody: {
            required: true,
            content: Object.fromEntries(
              ['text/csv', 'text/html', 'application/json', 'application/zip', 'text/plain'].map((type) => [
                type,
                { schema: { type: 'string', format: 'binary' } },
              ]),
            ),
          },
        } as never,
      },
    )
    .get(
      '/v1/imports/:id',
      async ({ params, principal }) => {
        const found = await importOf(deps, principal, params.id)
        if (!found) throw new ImportNotFoundError(params.id)
        return { import: found }
      },
      {
        params: t.Object({ id: t.String() }),
        response: { 200: ImportResponse, ...commonAuthedErrors, 404: Errors.ImportNotFoundError },
        auth: 'saved-items:read',
        detail: {
          summary: 'Read an import',
          description:
            'Where an import stands: its counts, the folders it used, dropped tags and the first 100 errors.',
          tags: ['Import and export'],
        },
      },
    )
    .get('/v1/imports', async ({ principal }) => ({ imports: await importsOf(deps, principal) }), {
      response: { 200: ImportList, ...commonAuthedErrors },
      auth: 'saved-items:read',
      detail: {
        summary: 'List imports',
        description: "The caller's imports, newest first (up to 100).",
        tags: ['Import and export'],
      },
    })
    .get('/v1/export', async ({ query, principal }) => await exportDownload(deps, principal, exportRequestOf(query)), {
      query: ExportQuery,
      response: {
        200: t.String(),
        ...commonAuthedErrors,
        400: Errors.ValidationError,
        404: Errors.FolderNotFoundError,
      },
      auth: { scopes: ['saved-items:read', 'folders:read'] },
      detail: {
        summary: 'Export the library',
        description:
          'Every saved item with every field and its folder name, streamed as an attachment: `json` (default; `{ format: "readlater", version: 1, exportedAt, savedItems: [SavedItem…] }`, each item with its `highlights: [{ id, quote, position, color, note, createdAt, updatedAt }]` in text order), `netscape` (bookmark HTML every browser, Pinboard and Raindrop import; folders as folders, TAGS, TOREAD="1" for unread), `csv` (url,title,folder,tags,is_read,created_at,last_saved_at,normalized_url,type,description,site_name,source_name,id,host,preview_summary,image_url,canonical_url,favicon_url,favicon_light_url,favicon_dark_url,enrichment_status,capture_channel,updated_at) or `markdown` (the highlights: a zip, `readlater-highlights-<date>.zip`, of one Markdown file per item that has highlights, with YAML front matter `title`, `url`, `savedAt`, `tags`, `folder` and each highlight as a `>` quote followed by its note, for Obsidian and Logseq). JSON, bookmarks and CSV import back into Readlater with their URLs, titles, read state, folders, tags and saved times; JSON with its highlights too. `epub` is a book for e-readers (EPUB 3, `application/epub+zip`) of the articles of the items `folder` (an id, `none`, or every folder when absent) and `state` (`unread`, the default, or `all`) select, newest saved first, at most 500: one chapter an item (an item without an article gets its title and link), its archived images included, titled "Readlater: <folder or Unread>, <date>". `folder` and `state` with another format are 400 ValidationError; an unknown folder 404 FolderNotFoundError.',
        tags: ['Import and export'],
        'x-download': ['application/json', 'text/html', 'text/csv', 'application/zip', 'application/epub+zip'],
      } as never,
    })
    .get(
      '/v1/saved-items/:id/epub',
      async ({ params, principal }) => downloadResponse(await itemEpub(deps, principal, params.id)),
      {
        params: IdParams,
        response: { 200: t.String(), ...commonAuthedErrors, 404: Errors.SavedItemNotFoundError },
        auth: 'saved-items:read',
        detail: {
          summary: 'Download an item as EPUB',
          description:
            'The item as a book for e-readers (EPUB 3, `application/epub+zip`, an attachment named after its title): its article, as the reader view shows it, with its archived images; an item without an article (pending, failed, not an article) is a book of its title, its link and "No article was extracted". The book\'s identifier is `urn:uuid:` and the item\'s id, the same at every download. Images that are not archived are their alt text: a book is never made by fetching other sites.',
          tags: ['Import and export'],
          'x-download': ['application/epub+zip'],
        } as never,
      },
    )
