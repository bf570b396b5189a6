import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { classifyTags } from '../../../core/enrichment/classify-tags.ts'
import type { Tag } from '../../../core/types.ts'

const URL_ = 'https://example.com/'
const title = (text: string, url = URL_): Tag[] => classifyTags({ title: text, description: null, url })

const positives: readonly [text: string, tags: Tag[]][] = [
  ['What AI means for search', ['ai']],
  ['Running LLMs locally with Ollama', ['ai']],
  ['GPT-4o and Claude compared', ['ai']],
  ['An introduction to machine learning', ['ai']],
  ['OpenAI ships a new model', ['ai']],
  ['Ten CLI tools I use every day', ['tools']],
  ['My Neovim setup', ['tools']],
  ['A better code editor', ['tools']],
  ['Building a Chrome extension', ['tools']],
  ['TypeScript 5.8 is out', ['typescript']],
  ['Understanding tsconfig paths', ['typescript']],
  ['Deploying on Deno Deploy', ['typescript']],
  ['Anatomy of an SSRF bug', ['security']],
  ['CVE-2024-3094: the xz backdoor', ['security']],
  ['Stopping XSS with a CSP', ['security']],
  ['Phishing-resistant passkeys', ['security']],
  ['Typography for the web', ['design']],
  ['Accessibility audits in Figma', ['design']],
  ['UX writing tips', ['design']],
  ['Scaling Postgres to a billion rows', ['backend']],
  ['Designing a REST API', ['backend']],
  ['SQLite in production', ['backend']],
  ['Kubernetes for small teams', ['backend']],
  ['CSS container queries', ['front-end']],
  ['React Server Components explained', ['front-end']],
  ['Svelte 5 runes', ['front-end']],
  ['The DOM is not slow', ['front-end']],
  ['Front-end performance budgets', ['front-end']],
  ['System design interview questions, by design', ['backend']],
  ['A TypeScript CLI for SQL security audits', ['tools', 'typescript', 'security', 'backend']],
]

const negatives: readonly string[] = [
  'He said it was fine',
  'Ai Weiwei opens a new exhibition',
  'Gli studenti tornano ai banchi',
  'How markets react to rate cuts',
  'A svelte new sports car',
  'Social Security payments rise',
  'The editor’s letter',
  'Hair extensions and terminal velocity',
  'A brain with neural activity',
  'Il ruolo delle api nell’agricoltura',
  'Learning to bake bread',
]

describe('classifyTags()', () => {
  for (const [text, tags] of positives) {
    test(`classifyTags() tags "${text}" as ${tags.join(', ')}`, () => {
      assert.deepEqual(title(text), tags)
    })
  }

  for (const text of negatives) {
    test(`classifyTags() finds no tag in "${text}"`, () => {
      assert.deepEqual(title(text), [])
    })
  }

  test('classifyTags() reads the description', () => {
    assert.deepEqual(
      classifyTags({ title: 'Weekly notes', description: 'On prompt injection and LLM agents', url: URL_ }),
      ['ai', 'security'],
    )
  })

  test('classifyTags() reads the host, without its top-level domain', () => {
    assert.deepEqual(title('Home', 'https://security.googleblog.com/'), ['security'])
    assert.deepEqual(title('Home', 'https://www.typescriptlang.org/docs/'), ['typescript'])
    assert.deepEqual(title('Home', 'https://react.dev/learn'), ['front-end'])
    assert.deepEqual(title('Home', 'https://example.ai/'), [])
  })

  test('classifyTags() reads path words, decoded, without page-file extensions', () => {
    assert.deepEqual(title('Post', 'https://example.com/blog/2024/why-we-moved-to-postgres'), ['backend'])
    assert.deepEqual(title('Post', 'https://example.com/notes/machine%20learning'), ['ai'])
    assert.deepEqual(title('Post', 'https://example.com/articles/post.html'), [])
    assert.deepEqual(title('Post', 'https://example.com/%E0%A4%A/typescript'), ['typescript'])
  })

  test('classifyTags() ignores the query string and fragment', () => {
    assert.deepEqual(title('Post', 'https://example.com/p?topic=security#ai'), [])
  })

  test('classifyTags() returns TAGS order without duplicates', () => {
    assert.deepEqual(
      classifyTags({
        title: 'CSS and React, CSS and AI',
        description: 'AI AI design',
        url: 'https://example.com/ai/css',
      }),
      ['ai', 'design', 'front-end'],
    )
  })

  test('classifyTags() survives an unparsable URL and empty fields', () => {
    assert.deepEqual(classifyTags({ title: null, description: null, url: 'not a url' }), [])
    assert.deepEqual(classifyTags({ title: 'Redis', description: null, url: '' }), ['backend'])
  })
})
