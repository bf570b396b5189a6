import { expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'

// The README's embedding section is the example the package test runs (docs/embedding.md#examples), so the
// two cannot drift apart.
test("the README's embedding code is examples/elysia.ts, character for character", () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8')
  const section = readme.split(/^## /m).find((part) => part.startsWith('Embedding'))!
  const block = /```ts\n([\s\S]*?)```/.exec(section)![1]
  expect(block).toBe(readFileSync(new URL('../../examples/elysia.ts', import.meta.url), 'utf8'))
})
