import { TAGS, type Tag } from '../types.ts'

interface TagRule {
  /** Whole-word phrases; a final `s` is also accepted, so "llm" matches "LLMs". */
  keywords: readonly string[]
  /** Phrases whose words never count for this tag: "system design" is not visual design. */
  except?: readonly string[]
}

/**
 * The keywords behind each tag. Matching is by whole words (letters and digits), so "said" never
 * reads as "ai" and "node.js" reads as "node js". A keyword written with a capital letter is
 * matched with that case in the title and description, because the lowercase word is ordinary
 * English or another language ("react to", "svelte", Italian "ai", "api" for bees); URLs are
 * lowercase by convention, so there it matches in any case. Bare words that are mostly noise
 * outside software ("editor", "extension", "terminal", "neural", "ml") only count in a phrase.
 * @see docs/enrichment.md
 */
const TAG_RULES: Readonly<Record<Tag, TagRule>> = {
  ai: {
    keywords: [
      'AI',
      'artificial intelligence',
      'genai',
      'llm',
      'large language model',
      'language model',
      'gpt',
      'gpt4',
      'chatgpt',
      'openai',
      'anthropic',
      'Claude',
      'deepmind',
      'machine learning',
      'deep learning',
      'neural network',
      'neural net',
      'transformer model',
      'diffusion model',
      'stable diffusion',
      'midjourney',
      'hugging face',
      'huggingface',
      'pytorch',
      'tensorflow',
      'copilot',
      'natural language processing',
      'computer vision',
      'reinforcement learning',
      'chatbot',
      'prompt engineering',
      'model context protocol',
      'agentic',
      'langchain',
      'ollama',
    ],
  },
  tools: {
    keywords: [
      'tool',
      'tooling',
      'cli',
      'command line',
      'terminal emulator',
      'code editor',
      'text editor',
      'vscode',
      'vs code',
      'visual studio code',
      'visualstudio',
      'neovim',
      'vim',
      'emacs',
      'jetbrains',
      'intellij',
      'sublime text',
      'productivity',
      'browser extension',
      'chrome extension',
      'firefox extension',
      'git',
      'homebrew',
      'dotfiles',
      'tmux',
      'zsh',
      'raycast',
      'devtools',
      'linter',
      'eslint',
    ],
  },
  typescript: {
    keywords: ['typescript', 'typescriptlang', 'tsconfig', 'deno', 'definitelytyped'],
  },
  security: {
    keywords: [
      'security',
      'cybersecurity',
      'infosec',
      'appsec',
      'vulnerability',
      'vulnerabilities',
      'cve',
      'zero day',
      '0day',
      'xss',
      'cross site scripting',
      'csrf',
      'ssrf',
      'sql injection',
      'prompt injection',
      'remote code execution',
      'privilege escalation',
      'sandbox escape',
      'exploit',
      'malware',
      'ransomware',
      'spyware',
      'phishing',
      'encryption',
      'cryptography',
      'pentest',
      'penetration testing',
      'threat model',
      'threat modeling',
      'owasp',
      'authentication',
      'oauth',
      'webauthn',
      'passkey',
      'tls',
      'backdoor',
      'data breach',
      'supply chain attack',
    ],
    except: [
      'social security',
      'security council',
      'food security',
      'job security',
      'financial security',
      'security deposit',
    ],
  },
  design: {
    keywords: [
      'design',
      'designer',
      'ux',
      'user experience',
      'user interface',
      'typography',
      'typeface',
      'font',
      'figma',
      'accessibility',
      'a11y',
      'usability',
      'wireframe',
      'dribbble',
      'color palette',
      'colour palette',
      'color theory',
      'illustration',
    ],
    except: [
      'system design',
      'api design',
      'database design',
      'schema design',
      'software design',
      'protocol design',
      'language design',
      'compiler design',
      'chip design',
      'design pattern',
      'design doc',
      'by design',
      'intelligent design',
    ],
  },
  backend: {
    keywords: [
      'backend',
      'back end',
      'server side',
      'server',
      'serverless',
      'database',
      'postgres',
      'postgresql',
      'mysql',
      'mariadb',
      'sqlite',
      'sql',
      'nosql',
      'mongodb',
      'redis',
      'API',
      'graphql',
      'grpc',
      'kubernetes',
      'k8s',
      'docker',
      'microservice',
      'distributed system',
      'distributed systems',
      'system design',
      'message queue',
      'kafka',
      'rabbitmq',
      'elasticsearch',
      'orm',
      'node js',
      'nodejs',
      'django',
      'ruby on rails',
      'laravel',
      'spring boot',
      'fastapi',
      'load balancer',
      'sharding',
    ],
    except: [
      'web api',
      'browser api',
      'dom api',
      'fetch api',
      'javascript api',
      'canvas api',
      'server components',
      'discord server',
      'minecraft server',
    ],
  },
  'front-end': {
    keywords: [
      'frontend',
      'front end',
      'css',
      'html',
      'React',
      'reactjs',
      'Vue',
      'vuejs',
      'Svelte',
      'sveltekit',
      'Angular',
      'solidjs',
      'nextjs',
      'next js',
      'nuxt',
      'tailwind',
      'tailwindcss',
      'sass',
      'webpack',
      'Vite',
      'jsx',
      'DOM',
      'browser',
      'web components',
      'htmx',
      'jquery',
      'web vitals',
      'responsive design',
      'server components',
      'single page application',
    ],
  },
}

interface Phrase {
  tag: Tag
  /** As written, for case-sensitive matching. */
  words: readonly string[]
  lower: readonly string[]
  caseSensitive: boolean
  /** An exception phrase: its words do not count for the tag. */
  except: boolean
}

/** A run of words from one field, so a phrase never spans the end of the title and the description. */
interface Words {
  lower: readonly string[]
  original: readonly string[]
  fromUrl: boolean
}

const WORD_SEPARATORS = /[^\p{L}\p{N}]+/u
// Page-file extensions in a path say how a page is served, not what it is about (".html" is not front-end).
const PAGE_EXTENSION = /\.(?:s?html?|xhtml|php\d?|aspx?|jsp|cfm|cgi|pl)$/i

const splitWords = (text: string): string[] => text.split(WORD_SEPARATORS).filter((word) => word !== '')

/** Every keyword and exception phrase, by its first word in lowercase, so a field is read word by word. */
const PHRASES_BY_FIRST_WORD: ReadonlyMap<string, readonly Phrase[]> = (() => {
  const index = new Map<string, Phrase[]>()
  for (const tag of TAGS) {
    const { keywords, except = [] } = TAG_RULES[tag]
    for (const [list, isException] of [
      [keywords, false],
      [except, true],
    ] as const) {
      for (const text of list) {
        const words = splitWords(text)
        const lower = words.map((word) => word.toLowerCase())
        const phrase = { tag, words, lower, caseSensitive: text !== text.toLowerCase(), except: isException }
        index.set(lower[0]!, [...(index.get(lower[0]!) ?? []), phrase])
      }
    }
  }
  return index
})()

/**
 * The tags a page's title, description, host and path suggest, in {@link TAGS} order, without
 * duplicates. Never throws: an unparsable URL only contributes nothing.
 * @see docs/enrichment.md
 */
export function classifyTags(input: { title: string | null; description: string | null; url: string }): Tag[] {
  const found = new Set<Tag>()
  for (const words of [textWords(input.title ?? ''), textWords(input.description ?? ''), ...urlWords(input.url)]) {
    for (const tag of tagsIn(words)) found.add(tag)
  }
  return TAGS.filter((tag) => found.has(tag))
}

function tagsIn(words: Words): Set<Tag> {
  const hits: { phrase: Phrase; start: number }[] = []
  words.lower.forEach((word, start) => {
    const candidates = PHRASES_BY_FIRST_WORD.get(word) ?? []
    // A plural only counts on a phrase's last word, so for a one-word phrase.
    const singular = word.endsWith('s') ? PHRASES_BY_FIRST_WORD.get(word.slice(0, -1)) : undefined
    for (const phrase of [...candidates, ...(singular ?? []).filter((candidate) => candidate.words.length === 1)]) {
      if (matchesAt(words, phrase, start)) hits.push({ phrase, start })
    }
  })
  const excluded = new Set<string>()
  for (const { phrase, start } of hits) {
    if (phrase.except)
      for (let offset = 0; offset < phrase.words.length; offset++) excluded.add(`${phrase.tag} ${start + offset}`)
  }
  const tags = new Set<Tag>()
  for (const { phrase, start } of hits) {
    if (phrase.except) continue
    let clear = true
    for (let offset = 0; offset < phrase.words.length; offset++)
      if (excluded.has(`${phrase.tag} ${start + offset}`)) clear = false
    if (clear) tags.add(phrase.tag)
  }
  return tags
}

function matchesAt(words: Words, phrase: Phrase, start: number): boolean {
  const exact = phrase.caseSensitive && !words.fromUrl
  const source = exact ? words.original : words.lower
  const expected = exact ? phrase.words : phrase.lower
  const last = expected.length - 1
  for (let offset = 0; offset <= last; offset++) {
    const word = source[start + offset]
    if (word === undefined) return false
    if (word !== expected[offset] && !(offset === last && word === `${expected[offset]}s`)) return false
  }
  return true
}

function textWords(text: string): Words {
  const original = splitWords(text)
  return { original, lower: original.map((word) => word.toLowerCase()), fromUrl: false }
}

function urlWords(url: string): Words[] {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return []
  }
  // The top-level label says where a site is registered (".ai", ".dev"), not what it is about.
  const labels = parsed.hostname
    .toLowerCase()
    .replace(/\.$/, '')
    .replace(/^www\./, '')
    .split('.')
  if (labels.length > 1) labels.pop()
  const segments = parsed.pathname.split('/').map((segment) => {
    let decoded = segment
    try {
      decoded = decodeURIComponent(segment)
    } catch {
      // A malformed escape stays as written; its words still count.
    }
    return decoded.replace(PAGE_EXTENSION, '')
  })
  const lowerWords = (text: string): Words => {
    const lower = splitWords(text.toLowerCase())
    return { lower, original: lower, fromUrl: true }
  }
  return [lowerWords(labels.join(' ')), lowerWords(segments.join(' '))]
}
