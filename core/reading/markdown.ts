import TurndownService from 'turndown'

const DATA_URL = /^data:/i

function oneLine(value: string | null): string {
  return (value ?? '').replace(/\s+/g, ' ').trim()
}

function converter(): TurndownService {
  const service = new TurndownService({
    headingStyle: 'atx',
    codeBlockStyle: 'fenced',
    bulletListMarker: '-',
    emDelimiter: '_',
    hr: '---',
  })
  // Markdown has no tables of its own (GFM's cannot hold lists or line breaks in a cell): the sanitized
  // table stays as HTML, which Markdown allows.
  service.keep(['table'])
  // Turndown escapes Markdown's own syntax in text, but not `<` or `&`: text that reads `<img src=x onerror=…>`
  // in the article (escaped in its HTML) would come out as raw HTML for whoever renders the Markdown, and text
  // that reads `&lt;` as a `<`. A backslash keeps them text (CommonMark lets any ASCII punctuation be escaped);
  // a `&` is escaped only where it would start a character reference. Code keeps its `<`: turndown never
  // escapes code, where Markdown shows everything as written.
  const escape = service.escape.bind(service)
  service.escape = (text: string) =>
    escape(text)
      .replace(/</g, '\\<')
      .replace(/&(?=#?[a-z0-9]+;)/gi, '\\&')
  service.addRule('image', {
    filter: 'img',
    replacement: (_content, node) => {
      const image = node as HTMLElement
      const src = image.getAttribute('src') ?? ''
      if (!src) return ''
      // The alt text is text too: escaped the same way (turndown's own image rule leaves its `<` alone).
      const alt = service.escape(oneLine(image.getAttribute('alt')))
      // An inline image's base64 would fill a model's context with noise: its alt text stands in for it.
      if (DATA_URL.test(src)) return alt
      const destination = src.replace(/[<>()]/g, '\\$&')
      const title = oneLine(image.getAttribute('title')).replace(/["\\]/g, '\\$&')
      return `![${alt}](${destination.includes(' ') ? `<${destination}>` : destination}${title ? ` "${title}"` : ''})`
    },
  })
  return service
}

let shared: TurndownService | null = null

/** Markdown of sanitized article HTML (ATX headings, fenced code, tables kept as HTML). @see docs/reading.md#content */
export function articleMarkdown(html: string): string {
  shared ??= converter()
  return shared.turndown(html).trim()
}
