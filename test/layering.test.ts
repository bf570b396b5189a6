import { describe, expect, test } from 'bun:test'
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, sep } from 'node:path'

// docs/README.md#layout: the folders of adapters/ form layers, and an import only goes to a lower one.
// Read off the source, so a new upward import or a cycle fails here rather than in a review.
const ROOT = join(import.meta.dir, '..')

/** Each folder's layer; a folder may import only folders of a lower layer. */
const LAYER: Record<string, number> = {
  core: 0,
  config: 1,
  storage: 1,
  reading: 1,
  app: 2,
  runtime: 3,
  enrichment: 3,
  oauth: 4,
  webhooks: 4,
  embed: 4,
  jobs: 5,
  cli: 6,
  http: 6,
}

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)))
}

/** core, config, or the adapters/ folder a project path is in; null outside them. */
function folderOf(path: string): string | null {
  const parts = path.split(sep)
  if (parts[0] === 'core') return 'core'
  if (parts[0] !== 'adapters') return null
  return parts.length === 2 ? parts[1]!.replace(/\.ts$/, '') : parts[1]!
}

/** Every relative import (static, type-only or dynamic) of every file under core/ and adapters/. */
function imports(): { from: string; to: string; file: string; target: string }[] {
  const found = []
  for (const file of [...sourceFiles('core'), ...sourceFiles('adapters')]) {
    const text = readFileSync(join(ROOT, file), 'utf8')
    for (const match of text.matchAll(/(?:\bfrom|\bimport\s*\(|^import)\s*['"](\.{1,2}\/[^'"]+)['"]/gm)) {
      const target = relative(ROOT, join(ROOT, dirname(file), match[1]!))
      const from = folderOf(file)!
      const to = folderOf(target)
      if (to !== from) found.push({ from, to: to ?? `outside: ${target}`, file, target })
    }
  }
  return found
}

/**
 * The relative imports of a source text, each marked type-only or not: `import type`/`export type`, or a
 * braced list whose every name is `type X`, is type-only; anything else (a default or namespace import, a
 * side-effect import, a dynamic `import()`) brings in values.
 */
function importsOfText(text: string): { specifier: string; typeOnly: boolean }[] {
  const found: { specifier: string; typeOnly: boolean }[] = []
  for (const match of text.matchAll(
    /^[ \t]*(?:import|export)(\s+type\b)?([^;'"]*?)\bfrom\s*['"](\.{1,2}\/[^'"]+)['"]/gm,
  )) {
    const names = match[2]!.trim()
    const typeOnly =
      match[1] !== undefined ||
      (/^\{[^}]*\}$/.test(names) &&
        names
          .slice(1, -1)
          .split(',')
          .map((name) => name.trim())
          .filter(Boolean)
          .every((name) => name.startsWith('type ')))
    found.push({ specifier: match[3]!, typeOnly })
  }
  for (const match of text.matchAll(/(?:^[ \t]*import\s*|\bimport\s*\(\s*)['"](\.{1,2}\/[^'"]+)['"]/gm))
    found.push({ specifier: match[1]!, typeOnly: false })
  return found
}

/** Every file under core/ and adapters/ with the project files it imports (type-only imports too). */
function fileGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>()
  for (const file of [...sourceFiles('core'), ...sourceFiles('adapters')]) {
    const text = readFileSync(join(ROOT, file), 'utf8')
    const targets = [...text.matchAll(/(?:\bfrom|\bimport\s*\(|^import)\s*['"](\.{1,2}\/[^'"]+)['"]/gm)].map((match) =>
      relative(ROOT, join(ROOT, dirname(file), match[1]!)),
    )
    graph.set(file, [...new Set(targets)])
  }
  return graph
}

/** The import cycles of a graph: its strongly connected components of more than one file, or a file importing itself (Tarjan). */
function cyclesOf(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const cycles: string[][] = []
  const visit = (file: string): void => {
    index.set(file, index.size)
    low.set(file, index.get(file)!)
    stack.push(file)
    onStack.add(file)
    for (const target of graph.get(file) ?? []) {
      if (!graph.has(target)) continue
      if (!index.has(target)) {
        visit(target)
        low.set(file, Math.min(low.get(file)!, low.get(target)!))
      } else if (onStack.has(target)) low.set(file, Math.min(low.get(file)!, index.get(target)!))
    }
    if (low.get(file) !== index.get(file)) return
    const component: string[] = []
    let member: string
    do {
      member = stack.pop()!
      onStack.delete(member)
      component.push(member)
    } while (member !== file)
    if (component.length > 1 || graph.get(file)!.includes(file)) cycles.push(component.sort())
  }
  for (const file of graph.keys()) if (!index.has(file)) visit(file)
  return cycles
}

describe('layering (docs/README.md#layout)', () => {
  const edges = imports()

  test('the scan sees the imports it judges', () => {
    // Guards against a regex that matches nothing, which would pass every test below.
    expect(edges.filter((edge) => edge.from === 'http' && edge.to === 'app').length).toBeGreaterThan(10)
    expect(edges.filter((edge) => edge.from === 'storage' && edge.to === 'core').length).toBeGreaterThan(5)
  })

  test('every folder is in a layer, and every import goes to a lower layer', () => {
    const folders = new Set(edges.flatMap((edge) => [edge.from, edge.to]))
    expect([...folders].filter((folder) => !(folder in LAYER))).toEqual([])
    const upward = edges
      .filter((edge) => !(LAYER[edge.to]! < LAYER[edge.from]!))
      .map((edge) => `${edge.file} → ${edge.target}`)
    expect(upward).toEqual([])
  })

  test('only cli imports jobs (it runs an import job itself); index.ts starts the rest', () => {
    const intoJobs = edges.filter((edge) => edge.to === 'jobs' && edge.from !== 'cli')
    expect(intoJobs.map((edge) => `${edge.file} → ${edge.target}`)).toEqual([])
  })

  test('the import reader tells type-only imports from value imports', () => {
    const text = [
      "import type { A } from '../storage/a.ts'",
      "import { type B, type C } from '../storage/b.ts'",
      "import { d, type E } from '../storage/d.ts'",
      'import {\n  f,\n  type G,\n} from "../storage/f.ts"',
      "import * as h from '../storage/h.ts'",
      "export { i } from '../storage/i.ts'",
      "export type { J } from '../storage/j.ts'",
      "import '../storage/k.ts'",
      "const l = await import('../storage/l.ts')",
    ].join('\n')
    expect(importsOfText(text)).toEqual([
      { specifier: '../storage/a.ts', typeOnly: true },
      { specifier: '../storage/b.ts', typeOnly: true },
      { specifier: '../storage/d.ts', typeOnly: false },
      { specifier: '../storage/f.ts', typeOnly: false },
      { specifier: '../storage/h.ts', typeOnly: false },
      { specifier: '../storage/i.ts', typeOnly: false },
      { specifier: '../storage/j.ts', typeOnly: true },
      { specifier: '../storage/k.ts', typeOnly: false },
      { specifier: '../storage/l.ts', typeOnly: false },
    ])
  })

  test('only app and jobs call storage: every other folder (http, cli, oauth, …) has type imports of it only', () => {
    const callers = sourceFiles('adapters').filter((file) => !['app', 'jobs', 'storage'].includes(folderOf(file)!))
    // Guards against a file list that misses the folders the rule is for.
    for (const folder of ['http', 'cli', 'oauth']) expect(callers.some((file) => folderOf(file) === folder)).toBe(true)
    const valueImports = callers.flatMap((file) =>
      importsOfText(readFileSync(join(ROOT, file), 'utf8'))
        .filter((found) => !found.typeOnly)
        .map((found) => relative(ROOT, join(ROOT, dirname(file), found.specifier)))
        .filter((target) => folderOf(target) === 'storage')
        .map((target) => `${file} → ${target}`),
    )
    expect(valueImports).toEqual([])
  })

  test('no file-level import cycle anywhere in core/ and adapters/', () => {
    expect(cyclesOf(fileGraph()).map((cycle) => cycle.join(' → '))).toEqual([])
  })

  test('no folder-level cycle anywhere in core/ and adapters/, sub-folders included (http/app.ts composes http)', () => {
    // A folder imports another when one of its files does. The composing files stand apart from the folder
    // they compose: http/app.ts builds the HTTP surface out of routes/, web/ and mcp/, and an index.ts
    // gathers a folder's exports for a package entry (core/index.ts is `readlater/core`).
    const composers = new Set([join('adapters', 'http', 'app.ts')])
    const folders = new Map<string, string[]>()
    for (const [file, targets] of fileGraph()) {
      if (composers.has(file) || file.endsWith(`${sep}index.ts`)) continue
      const from = dirname(file)
      const to = targets.filter((target) => target.startsWith('core') || target.startsWith('adapters')).map(dirname)
      folders.set(from, [...new Set([...(folders.get(from) ?? []), ...to.filter((folder) => folder !== from)])])
    }
    expect(cyclesOf(folders).map((cycle) => cycle.join(' ↔ '))).toEqual([])
  })

  test('the cycle finder finds cycles', () => {
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['d.ts']],
      ['e.ts', ['a.ts']],
    ])
    expect(cyclesOf(graph)).toEqual([['a.ts', 'b.ts', 'c.ts'], ['d.ts']])
  })

  test('core imports nothing outside core, and no runtime module', () => {
    const outside = edges.filter((edge) => edge.from === 'core').map((edge) => `${edge.file} → ${edge.target}`)
    expect(outside).toEqual([])
    const runtime = sourceFiles('core').filter((file) =>
      /(?:from|import\s*\()\s*['"](?:node:|bun:|npm:|jsr:)/.test(readFileSync(join(ROOT, file), 'utf8')),
    )
    expect(runtime).toEqual([])
  })
})
