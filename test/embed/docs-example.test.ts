import { expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'

// docs/embedding.md#examples shows the example the package test runs, so the two cannot drift apart.
test("docs/embedding.md's Elysia example is examples/elysia.ts, character for character", () => {
  const page = readFileSync(new URL('../../docs/embedding.md', import.meta.url), 'utf8')
  const section = page.split(/^## /m).find((part) => part.startsWith('Examples'))!
  const block = /```ts\n([\s\S]*?)```/.exec(section)![1]
  expect(block).toBe(readFileSync(new URL('../../examples/elysia.ts', import.meta.url), 'utf8'))
})
