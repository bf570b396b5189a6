import { Parser } from 'htmlparser2'
import { guessItemType } from '../url/guess-type.ts'
import type { ItemType } from '../types.ts'
import { classifyTags } from './classify-tags.ts'
import { cleanText, cutSummary, TextCollector } from './clean-text.ts'
import { HEAD_TAGS, hidesText, INERT_TAGS, INLINE_TAGS, isContentRegion, isJsonLd } from './element-rules.ts'
import { chooseFavicons, defaultFavicon, firstHttpUrl, resolveHttpUrl, type IconLink } from './page-links.ts'
import type { PageMetadata } from './page-metadata.ts'
import { readItemType, readJsonLd, type SchemaFlags } from './schema-types.ts'

const TITLE_MAX = 500
const DESCRIPTION_MAX = 1000
const SITE_NAME_MAX = 200

/**
 * How much more input is read after the summary has its text, in case an `<article>` or `<main>`
 * (whose text is preferred) or a body-placed JSON-LD block (which may settle the type) still
 * follows. Past it the result is frozen, so a huge page costs this much, not its full size.
 */
export const SETTLE_WINDOW = 256 * 1024

// Per-element flags, pushed on open and undone on close (htmlparser2 closes every element it opens).
const SKIP = 1 // no readable text inside
const INERT = 2 // markup inside is not part of the document: no metadata either
const REGION = 4 // the preferred summary region
const TITLE = 8
const JSON_LD = 16

const META_KEYS: ReadonlySet<string> = new Set([
  'og:title',
  'twitter:title',
  'og:description',
  'twitter:description',
  'description',
  'og:site_name',
  'application-name',
  'og:type',
  'og:url',
  'og:image',
  'og:image:url',
  'og:image:secure_url',
  'twitter:image',
  'twitter:image:src',
])
const IMAGE_KEYS = ['og:image', 'og:image:url', 'og:image:secure_url', 'twitter:image', 'twitter:image:src'] as const
// Bounds on what one page can make us hold: values per key, links, script sizes, title text.
const MAX_VALUES = 4
const MAX_LINKS = 32
const MAX_JSON_LD_SCRIPTS = 32
const MAX_JSON_LD_CHARS = 512 * 1024
const MAX_TITLE_CHARS = 16 * 1024

/** A streaming page extractor: feed decoded HTML in chunks, then read the metadata. */
export interface PageExtractor {
  write(chunk: string): void
  /** True once nothing more can change the result; the caller may stop feeding (later writes are ignored). */
  readonly done: boolean
  finish(): PageMetadata
}

/**
 * Streaming extraction of {@link PageMetadata} from a page's decoded HTML, with relative URLs
 * resolved against `finalUrl` (the URL after redirects) or the page's `<base href>`.
 * `done` turns true at `</body>`; or once the head is read, the summary's preferred region
 * (`<article>` or `<main>`) has given its text and the type is already settled above `website`;
 * or {@link SETTLE_WINDOW} characters after the summary had its text. From then on further input
 * is ignored, so feeding a whole page gives exactly what a caller that stopped early gets.
 * @see docs/enrichment.md
 */
export function createPageExtractor(finalUrl: string): PageExtractor {
  return new StreamingExtractor(finalUrl)
}

/** {@link createPageExtractor} over a whole page at once. @see docs/enrichment.md */
export function extractPage(html: string, finalUrl: string): PageMetadata {
  const extractor = createPageExtractor(finalUrl)
  extractor.write(html)
  return extractor.finish()
}

/**
 * For a fetched document that is not HTML (PDF, image…): what its URL gives. The type from
 * {@link guessItemType}, the title from the decoded last path segment (e.g. "annual-report.pdf"),
 * `{origin}/favicon.ico`, and tags from the URL; the rest null.
 * @see docs/enrichment.md
 */
export function metadataFromUrl(finalUrl: string): PageMetadata {
  let title: string | null = null
  try {
    const segment =
      new URL(finalUrl).pathname
        .split('/')
        .filter((part) => part !== '')
        .at(-1) ?? ''
    let decoded = segment
    try {
      decoded = decodeURIComponent(segment)
    } catch {
      // A malformed escape is shown as written.
    }
    title = cleanText(decoded, TITLE_MAX)
  } catch {
    // Not a URL: nothing to name the document by.
  }
  return {
    ...emptyMetadata(guessItemType(finalUrl)),
    title,
    faviconUrl: defaultFavicon(finalUrl),
    tags: classifyTags({ title, description: null, url: finalUrl }),
  }
}

class StreamingExtractor implements PageExtractor {
  private readonly finalUrl: string
  private readonly parser: Parser
  private readonly stack: number[] = []
  private skipDepth = 0
  private inertDepth = 0
  private inTitle = false
  private titleSeen = false
  private titleText = ''
  private jsonLd: string | null = null
  private jsonLdScripts = 0
  private headPassed = false
  private bodyClosed = false
  private readonly bodyText = new TextCollector()
  private regionText = new TextCollector()
  private region: 'none' | 'open' | 'closed' = 'none'
  private settledAt: number | null = null
  private readonly meta = new Map<string, string[]>()
  private readonly canonicalLinks: string[] = []
  private readonly icons: IconLink[] = []
  private baseHref: string | null = null
  private readonly schema: SchemaFlags = { article: false, sourceCode: false }
  private articleElement = false
  // The type as of the last type-relevant element; checkDone asks often, so it is not recomputed per event.
  private typeSoFar: ItemType | null = null
  private stopped = false
  private result: PageMetadata | null = null

  constructor(finalUrl: string) {
    this.finalUrl = finalUrl
    this.parser = new Parser({
      onopentag: (name, attributes) => this.open(name, attributes),
      onclosetag: (name) => this.close(name),
      ontext: (text) => this.text(text),
    })
  }

  get done(): boolean {
    return this.stopped || this.result !== null
  }

  write(chunk: string): void {
    if (!this.done) this.parser.write(chunk)
  }

  finish(): PageMetadata {
    if (this.result !== null) return this.result
    if (!this.stopped) this.parser.end()
    this.stopped = true
    const base = this.base()
    const canonicalUrl = this.canonical(base)
    const title = this.firstText(['og:title', 'twitter:title'], TITLE_MAX) ?? cleanText(this.titleText, TITLE_MAX)
    const description = this.firstText(['og:description', 'twitter:description', 'description'], DESCRIPTION_MAX)
    this.result = {
      title,
      description,
      siteName: this.firstText(['og:site_name', 'application-name'], SITE_NAME_MAX),
      ...chooseFavicons(this.icons, base, this.finalUrl),
      imageUrl: firstHttpUrl(
        IMAGE_KEYS.flatMap((key) => this.meta.get(key) ?? []),
        base,
      ),
      canonicalUrl,
      previewSummary: cutSummary(this.regionText.text !== '' ? this.regionText.text : this.bodyText.text),
      type: this.type(canonicalUrl),
      tags: classifyTags({ title, description, url: this.finalUrl }),
    }
    return this.result
  }

  private open(name: string, attributes: Record<string, string>): void {
    if (this.stopped) return
    let flags = 0
    if (this.skipDepth === 0 && hidesText(name, attributes)) flags |= SKIP
    if (this.inertDepth === 0) {
      if (INERT_TAGS.has(name)) flags |= INERT
      else flags |= this.readElement(name, attributes)
    }
    this.stack.push(flags)
    if (flags & SKIP) this.skipDepth++
    if (flags & INERT) this.inertDepth++
    if (flags & TITLE) this.inTitle = true
    if (flags & JSON_LD) this.jsonLd = ''
    if (!INLINE_TAGS.has(name)) this.separate()
    this.checkDone()
  }

  /** Metadata an element carries; returns the flags it opens. */
  private readElement(name: string, attributes: Record<string, string>): number {
    let flags = 0
    if (name === 'meta') this.readMeta(attributes)
    else if (name === 'link') this.readLink(attributes)
    else if (name === 'base' && this.baseHref === null && attributes.href !== undefined) {
      this.baseHref = attributes.href
      this.typeSoFar = null
    } else if (name === 'title' && !this.titleSeen) {
      this.titleSeen = true
      flags |= TITLE
    } else if (name === 'script' && isJsonLd(attributes.type) && this.jsonLdScripts < MAX_JSON_LD_SCRIPTS)
      flags |= JSON_LD
    if (name === 'article' && !this.articleElement) {
      this.articleElement = true
      this.typeSoFar = null
    }
    if (attributes.itemtype !== undefined) {
      readItemType(attributes.itemtype, this.schema)
      this.typeSoFar = null
    }
    if (!HEAD_TAGS.has(name)) this.headPassed = true
    if (this.region === 'none' && this.skipDepth === 0 && isContentRegion(name, attributes)) {
      this.region = 'open'
      flags |= REGION
    }
    return flags
  }

  private readMeta(attributes: Record<string, string>): void {
    const content = attributes.content
    if (content === undefined || content.trim() === '') return
    for (const attribute of [attributes.property, attributes.name]) {
      const key = attribute?.trim().toLowerCase()
      if (key === undefined || !META_KEYS.has(key)) continue
      const values = this.meta.get(key) ?? []
      if (values.length < MAX_VALUES) values.push(content)
      this.meta.set(key, values)
      if (key === 'og:type' || key === 'og:url') this.typeSoFar = null
    }
  }

  private readLink(attributes: Record<string, string>): void {
    const href = attributes.href
    if (href === undefined) return
    const rel = (attributes.rel ?? '').toLowerCase().split(/[\t\n\f\r ]+/)
    if (rel.includes('canonical') && this.canonicalLinks.length < MAX_LINKS) {
      this.canonicalLinks.push(href)
      this.typeSoFar = null
    }
    const icon = rel.includes('icon')
    const appleTouch = rel.includes('apple-touch-icon') || rel.includes('apple-touch-icon-precomposed')
    if ((icon || appleTouch) && this.icons.length < MAX_LINKS) {
      this.icons.push({ href, media: attributes.media ?? '', appleTouch: appleTouch && !icon })
    }
  }

  private close(name: string): void {
    if (this.stopped) return
    const flags = this.stack.pop() ?? 0
    if (flags & SKIP) this.skipDepth--
    if (flags & INERT) this.inertDepth--
    if (flags & TITLE) this.inTitle = false
    if (flags & JSON_LD && this.jsonLd !== null) {
      this.jsonLdScripts++
      readJsonLd(this.jsonLd, this.schema)
      this.jsonLd = null
      this.typeSoFar = null
    }
    if (flags & REGION) {
      // An empty region (an `<article>` teaser without text) does not count; the next one may.
      this.region = this.regionText.text === '' ? 'none' : 'closed'
      if (this.region === 'none') this.regionText = new TextCollector()
    }
    if (name === 'head') this.headPassed = true
    if (this.inertDepth === 0 && (name === 'body' || name === 'html')) this.bodyClosed = true
    if (!INLINE_TAGS.has(name)) this.separate()
    this.checkDone()
  }

  private text(text: string): void {
    if (this.stopped) return
    if (this.inTitle) {
      if (this.titleText.length < MAX_TITLE_CHARS) this.titleText += text
      return
    }
    if (this.jsonLd !== null) {
      // An oversized block is dropped whole; the rest of its text is script text, which is skipped.
      this.jsonLd = this.jsonLd.length + text.length <= MAX_JSON_LD_CHARS ? this.jsonLd + text : null
      return
    }
    if (this.skipDepth > 0) return
    if (!this.headPassed) {
      if (!/\S/.test(text)) return
      this.headPassed = true
    }
    this.bodyText.append(text)
    if (this.region === 'open') this.regionText.append(text)
    this.checkDone()
  }

  private separate(): void {
    this.bodyText.separate()
    this.regionText.separate()
  }

  private checkDone(): void {
    if (this.bodyClosed) return this.stop()
    const regionSettled = this.region === 'closed' || (this.region === 'open' && this.regionText.full)
    if (this.settledAt === null && (regionSettled || this.bodyText.full)) this.settledAt = this.parser.endIndex
    if (this.settledAt === null) return
    if (this.parser.endIndex - this.settledAt >= SETTLE_WINDOW) return this.stop()
    if (!this.headPassed || !regionSettled) return
    this.typeSoFar ??= this.type(this.canonical(this.base()))
    if (this.typeSoFar !== 'website') this.stop()
  }

  private stop(): void {
    this.stopped = true
    this.parser.pause()
  }

  private firstText(keys: readonly string[], max: number): string | null {
    for (const key of keys) {
      for (const value of this.meta.get(key) ?? []) {
        const text = cleanText(value, max)
        if (text !== null) return text
      }
    }
    return null
  }

  private base(): string {
    return resolveHttpUrl(this.baseHref, this.finalUrl) ?? this.finalUrl
  }

  private canonical(base: string): string | null {
    return firstHttpUrl([...this.canonicalLinks, ...(this.meta.get('og:url') ?? [])], base)
  }

  /** Most specific first: video, then repository, then article, else website. @see docs/enrichment.md */
  private type(canonicalUrl: string | null): ItemType {
    const guesses = [guessItemType(this.finalUrl), canonicalUrl === null ? 'website' : guessItemType(canonicalUrl)]
    const ogType = this.meta.get('og:type')?.[0]?.trim().toLowerCase() ?? ''
    if (guesses.includes('video') || ogType === 'video' || ogType.startsWith('video.')) return 'video'
    if (guesses.includes('repository') || this.schema.sourceCode) return 'repository'
    // docs/enrichment.md asks for "an <article> with schema.org Article": listing pages are full of bare
    // <article> cards, and the schema alone may describe something the page only links to.
    if (ogType === 'article' || (this.schema.article && this.articleElement)) return 'article'
    return 'website'
  }
}

function emptyMetadata(type: ItemType): PageMetadata {
  return {
    title: null,
    description: null,
    siteName: null,
    faviconUrl: null,
    faviconLightUrl: null,
    faviconDarkUrl: null,
    imageUrl: null,
    canonicalUrl: null,
    previewSummary: null,
    type,
    tags: [],
  }
}
