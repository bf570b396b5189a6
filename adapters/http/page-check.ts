import { TypeCompiler } from '@sinclair/typebox/compiler'
import type { ListedHighlightPage } from '../app/highlights.ts'
import type { ListedPage } from '../app/saved-items.ts'
import { ListedHighlight, SavedItem } from './schemas.ts'

const itemCheck = TypeCompiler.Compile(SavedItem)
const highlightCheck = TypeCompiler.Compile(ListedHighlight)

/**
 * Checks a listed page's items against the SavedItem response schema, once per cached page whichever
 * transport serves it first (REST or MCP): a page that passed is marked and never walked again. Returns
 * where the first item breaks the schema (path and rule, never the value), or null.
 */
export function pageSchemaFailure(listed: ListedPage): string | null {
  if (listed.verified) return null
  for (const [index, item] of listed.page.savedItems.entries()) {
    if (itemCheck.Check(item)) continue
    const error = itemCheck.Errors(item).First()
    return `response.savedItems.${index}${error?.path.replace(/\//g, '.') ?? ''}: ${error?.message ?? 'does not match the schema'}`
  }
  listed.verified = true
  return null
}

/** `pageSchemaFailure` for a cached page of GET /v1/highlights (docs/highlights.md#endpoints). */
export function highlightPageSchemaFailure(listed: ListedHighlightPage): string | null {
  if (listed.verified) return null
  for (const [index, highlight] of listed.page.highlights.entries()) {
    if (highlightCheck.Check(highlight)) continue
    const error = highlightCheck.Errors(highlight).First()
    return `response.highlights.${index}${error?.path.replace(/\//g, '.') ?? ''}: ${error?.message ?? 'does not match the schema'}`
  }
  listed.verified = true
  return null
}
