import { expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'

// docs/embedding.md#the-client: the client runs in browsers and extensions, so at run time it imports
// nothing at all; its types come from the server's schemas, as type-only imports that vanish when built.
test('the client has no run-time import', () => {
  const source = readFileSync(new URL('../../client/index.ts', import.meta.url), 'utf8')
  const imports = [...source.matchAll(/^import\s.*$/gm)].map((match) => match[0])
  expect(imports.length).toBeGreaterThan(0)
  for (const line of imports) expect(line).toMatch(/^import type /)
})
