import { Type, type TObject } from '@sinclair/typebox'
import { TypeCompiler } from '@sinclair/typebox/compiler'
import type { ListedHighlightPage } from '../app/highlights.ts'
import type { ListedPage } from '../app/saved-items.ts'
import { ListedHighlight, SavedItem } from './schemas.ts'

/**
 * The response schemas' value rules without `additionalProperties: false`, compiled. TypeBox checks a closed
 * object by testing every own key against the list of known ones, which for a page of 50 items was most of
 * the check's cost (docs/benchmarks.md#the-uncached-list). A listed item has exactly the schema's keys by
 * construction (toSavedItemDto and toHighlightDto are object literals; test/http/page-check.test.ts holds
 * each literal's keys equal to its schema's), so the open check accepts and refuses the same values.
 */
const open = <T extends TObject>(schema: T) => Type.Object(schema.properties)
const itemCheck = TypeCompiler.Compile(open(SavedItem))
const highlightCheck = TypeCompiler.Compile(open(ListedHighlight))

type Check = ReturnType<typeof TypeCompiler.Compile>

/** Where the first of `entries` breaks `check`, as `response.<field>.<index><path>: <rule>` (never the value), or null. */
function firstFailure(check: Check, field: string, entries: readonly unknown[]): string | null {
  // Indexed, not entries(): the iterator's [index, entry] pair was an allocation per item on every uncached page.
  for (let index = 0; index < entries.length; index++) {
    const entry = entries[index]
    if (check.Check(entry)) continue
    const error = check.Errors(entry).First()
    return `response.${field}.${index}${error?.path.replace(/\//g, '.') ?? ''}: ${error?.message ?? 'does not match the schema'}`
  }
  return null
}

/**
 * Checks a listed page's items against the SavedItem response schema, once per cached page whichever
 * transport serves it first (REST or MCP): a page that passed is marked and never walked again. Returns
 * where the first item breaks the schema (path and rule, never the value), or null. A page is read as
 * SQLite's JSON, with no objects to walk: SQLite writes each item from its columns in the schema's shape
 * (WIRE_JSON, held equal to the objects' JSON by test/storage/protocol-ports.test.ts), and the database
 * refuses a value outside the schema (docs/api.md#data-rules). Its items are checked here once they are made
 * as objects (`pageItems`, for an MCP summary of a page REST read).
 */
export function pageSchemaFailure(listed: ListedPage): string | null {
  if (listed.verified || listed.page === null) return null
  const failure = firstFailure(itemCheck, 'savedItems', listed.page.savedItems)
  listed.verified = failure === null
  return failure
}

/** `pageSchemaFailure` for a cached page of GET /v1/highlights (docs/highlights.md#endpoints). */
export function highlightPageSchemaFailure(listed: ListedHighlightPage): string | null {
  if (listed.verified) return null
  const failure = firstFailure(highlightCheck, 'highlights', listed.page.highlights)
  listed.verified = failure === null
  return failure
}
