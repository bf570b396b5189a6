import { TypeCompiler } from '@sinclair/typebox/compiler'
import type { ListedPage } from '../app/saved-items.ts'
import { SavedItem } from './schemas.ts'

const itemCheck = TypeCompiler.Compile(SavedItem)

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
