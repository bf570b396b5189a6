import { Type, type TObject } from '@sinclair/typebox'
import { TypeCompiler } from '@sinclair/typebox/compiler'
import type { ListedHighlightPage } from '../app/highlights.ts'
import { ListedHighlight } from './schemas.ts'

/**
 * The response schemas' value rules without `additionalProperties: false`, compiled. TypeBox checks a closed
 * object by testing every own key against the list of known ones, which for a page of 50 entries was most of
 * the check's cost (docs/benchmarks.md#the-uncached-list). A listed highlight has exactly the schema's keys
 * by construction (toHighlightDto is an object literal; test/http/page-check.test.ts holds its keys equal to
 * the schema's), so the open check accepts and refuses the same values.
 */
const open = <T extends TObject>(schema: T) => Type.Object(schema.properties)
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
 * Checks a cached page of GET /v1/highlights (docs/highlights.md#endpoints) against its response schema, once
 * (a page that passed is marked and never walked again). Returns where the first highlight breaks it (path
 * and rule, never the value), or null. The saved-item list needs no such check: its pages are written by
 * SQLite from columns the database holds to the schema (docs/api.md#data-rules).
 */
export function highlightPageSchemaFailure(listed: ListedHighlightPage): string | null {
  if (listed.verified) return null
  const failure = firstFailure(highlightCheck, 'highlights', listed.page.highlights)
  listed.verified = failure === null
  return failure
}
