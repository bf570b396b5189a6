import { ARTICLE_TAGS } from '../../../../core/reading/sanitize-article.ts'

// A `<` that does not open or close one of the sanitizer's own elements. Sanitized HTML has none (its text
// and attribute values carry `&lt;`), so on a clean article this changes nothing.
const FOREIGN_TAG = new RegExp(`<(?!/?(?:${ARTICLE_TAGS.join('|')})[\\t\\n\\f\\r />])`, 'gi')

/**
 * The stored article as the reader view embeds it: any markup that is not one of the sanitizer's elements
 * is turned into text. The sanitizer is the trust boundary and the page's CSP the second wall; this is for
 * what a CSP cannot stop should a stored article ever hold raw markup: `<meta http-equiv="refresh">`
 * navigates away and `<link rel="dns-prefetch">` reaches out under any policy. Linear, and cheap next to
 * sending the page. @see docs/web.md#reader-view
 */
export const gateArticle = (html: string): string => html.replace(FOREIGN_TAG, '&lt;')
