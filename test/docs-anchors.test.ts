import { describe, expect, test } from 'bun:test'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, normalize, relative } from 'node:path'

// Every `docs/<page>.md#<anchor>` the source cites, and every `<page>.md#<anchor>` or `#<anchor>` link of the
// docs and the README, names a section that exists, so a reader following a comment lands where it points.

const root = normalize(join(import.meta.dir, '..'))
const codeRoots = ['core', 'adapters', 'client', 'extension', 'scripts', 'test', 'bench', 'index.ts', 'server.ts']
const codeFile = /\.(ts|js|mjs)$/

function filesUnder(path: string): string[] {
  const full = join(root, path)
  if (!existsSync(full)) return []
  if (!statSync(full).isDirectory()) return [path]
  return readdirSync(full, { withFileTypes: true }).flatMap((entry) =>
    entry.name === 'node_modules' || entry.name === 'fixtures' ? [] : filesUnder(join(path, entry.name)),
  )
}

// GitHub's heading ids: the rendered text lowercased, everything but letters, digits, `_`, `-` and spaces
// dropped, spaces turned into `-`; a repeated id gets `-1`, `-2`, … Explicit `<a id>` / `<a name>` count too.
function slugs(markdown: string): Set<string> {
  const ids = new Set<string>()
  const seen = new Map<string, number>()
  let fence: string | null = null
  for (const line of markdown.split('\n')) {
    const fenceMark = /^\s*(```|~~~)/.exec(line)?.[1]
    if (fenceMark) {
      if (fence === null) fence = fenceMark
      else if (fence === fenceMark) fence = null
      continue
    }
    if (fence !== null) continue
    for (const anchor of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) ids.add(anchor[1]!)
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1]
    if (heading === undefined) continue
    const text = heading
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/<[^>]+>/g, '')
      .replace(/`/g, '')
    const base = text
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
      .replace(/ /g, '-')
    const count = seen.get(base) ?? 0
    seen.set(base, count + 1)
    ids.add(count === 0 ? base : `${base}-${count}`)
  }
  return ids
}

type Reference = { from: string; line: number; page: string; anchor: string }

function references(): Reference[] {
  const found: Reference[] = []
  const code = codeRoots.flatMap(filesUnder).filter((path) => codeFile.test(path))
  for (const from of code) {
    const lines = readFileSync(join(root, from), 'utf8').split('\n')
    lines.forEach((text, index) => {
      // A cited page is under docs/ whether or not the citation says so (`docs/search.md#index`, `search.md#index`).
      for (const match of text.matchAll(/(?<![\w/.-])((?:docs\/)?[\w-]+\.md)#([\w-]+)/g)) {
        const page = match[1]!.startsWith('docs/') || match[1] === 'README.md' ? match[1]! : `docs/${match[1]}`
        found.push({ from, line: index + 1, page, anchor: match[2]! })
      }
    })
  }
  const docs = ['README.md', ...filesUnder('docs').filter((path) => path.endsWith('.md'))]
  for (const from of docs) {
    const lines = readFileSync(join(root, from), 'utf8').split('\n')
    lines.forEach((text, index) => {
      // Markdown links: `](<page>.md#<anchor>)` relative to the page, `](#<anchor>)` within it.
      for (const match of text.matchAll(/\]\(([^)\s#]*)#([^)\s]+)\)/g)) {
        const target = match[1]!
        if (/^[a-z]+:/i.test(target)) continue
        const page = target === '' ? from : normalize(join(dirname(from), target))
        found.push({ from, line: index + 1, page: relative('.', page), anchor: match[2]! })
      }
      // Citations in prose or code spans: `docs/<page>.md#<anchor>` from the root, as the code writes them.
      for (const match of text.matchAll(/(?<![\w/.(-])(docs\/[\w-]+\.md)#([\w-]+)/g)) {
        found.push({ from, line: index + 1, page: match[1]!, anchor: match[2]! })
      }
    })
  }
  return found
}

describe('doc anchors', () => {
  test('GitHub heading ids', () => {
    const ids = slugs(
      '# Docs\n## The `fetch` guard, (SSRF)\n## Errors\n## Errors\n```\n# not a heading\n```\n<a id="x-y"></a>\n',
    )
    expect([...ids]).toEqual(['docs', 'the-fetch-guard-ssrf', 'errors', 'errors-1', 'x-y'])
  })

  test('every cited docs section exists', () => {
    const pages = new Map<string, Set<string> | null>()
    const idsOf = (page: string) => {
      if (!pages.has(page)) {
        const full = join(root, page)
        pages.set(page, existsSync(full) ? slugs(readFileSync(full, 'utf8')) : null)
      }
      return pages.get(page)
    }
    const all = references()
    expect(all.length).toBeGreaterThan(300)
    const broken = all
      .filter((ref) => !idsOf(ref.page)?.has(ref.anchor))
      .map((ref) => `${ref.from}:${ref.line} → ${ref.page}#${ref.anchor}${idsOf(ref.page) ? '' : ' (no such page)'}`)
    expect(broken).toEqual([])
  })
})
