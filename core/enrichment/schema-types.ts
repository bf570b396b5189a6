/** schema.org types that make a page an article: `Article` and every subtype schema.org lists. */
const ARTICLE_TYPES: ReadonlySet<string> = new Set([
  'article',
  'advertisercontentarticle',
  'newsarticle',
  'analysisnewsarticle',
  'askpubliceditorarticle',
  'backgroundnewsarticle',
  'opinionnewsarticle',
  'reportagenewsarticle',
  'reviewnewsarticle',
  'report',
  'satiricalarticle',
  'scholarlyarticle',
  'medicalscholarlyarticle',
  'socialmediaposting',
  'blogposting',
  'liveblogposting',
  'discussionforumposting',
  'techarticle',
  'apireference',
])
const SOURCE_CODE_TYPE = 'softwaresourcecode'
const SCHEMA_PREFIX = /^(?:https?:\/\/(?:www\.)?schema\.org\/|schema:)/i
// Bounds on hostile or machine-generated JSON-LD: nodes looked at, and nesting followed.
const MAX_NODES = 2000
const MAX_DEPTH = 8

/** The schema.org types a page declares, as far as enrichment cares. */
export interface SchemaFlags {
  article: boolean
  sourceCode: boolean
}

/**
 * Reads one `<script type="application/ld+json">` body. Invalid JSON is ignored; raw line breaks
 * inside strings, which many sites emit, are tolerated. Follows arrays, `@graph` and `mainEntity`,
 * not every nested value, so an article that merely mentions a code repository stays an article.
 */
export function readJsonLd(source: string, flags: SchemaFlags): void {
  const json = source
    .trim()
    .replace(/^(?:<!--|\/\/\s*<!\[CDATA\[|<!\[CDATA\[)/, '')
    .replace(/(?:-->|\/\/\s*\]\]>|\]\]>)$/, '')
    .replace(/[\u0000-\u001f]/g, ' ')
  let data: unknown
  try {
    data = JSON.parse(json)
  } catch {
    return
  }
  let budget = MAX_NODES
  const visit = (node: unknown, depth: number): void => {
    if (depth > MAX_DEPTH || budget-- <= 0 || node === null || typeof node !== 'object') return
    if (Array.isArray(node)) {
      for (const item of node) visit(item, depth + 1)
      return
    }
    const record = node as Record<string, unknown>
    const types = record['@type']
    for (const type of Array.isArray(types) ? types : [types]) {
      if (typeof type === 'string') markType(type, flags)
    }
    visit(record['@graph'], depth + 1)
    visit(record['mainEntity'], depth + 1)
  }
  visit(data, 0)
}

/** Reads a microdata `itemtype` attribute: space-separated schema.org type URLs. */
export function readItemType(value: string, flags: SchemaFlags): void {
  for (const token of value.split(/\s+/)) {
    if (SCHEMA_PREFIX.test(token)) markType(token, flags)
  }
}

function markType(type: string, flags: SchemaFlags): void {
  const name = type.trim().replace(SCHEMA_PREFIX, '').toLowerCase()
  if (ARTICLE_TYPES.has(name)) flags.article = true
  else if (name === SOURCE_CODE_TYPE) flags.sourceCode = true
}
