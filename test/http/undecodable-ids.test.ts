import { beforeAll, describe, expect, test } from 'bun:test'
import { createHarness, type Harness } from '../helpers/harness.ts'
import { ENDPOINTS, type RouteIds } from './endpoint-table.ts'
import { seedPerson } from './people.ts'

// docs/api.md#errors: an id in a path that is not valid percent-encoding names nothing, and is answered as
// any unknown id is (the typed 404 naming it as it came, 204 for an item's DELETE), never a ValidationError.
// Every endpoint of the one endpoint table that addresses a resource by id, on the three drivers.

const BROKEN = ['%ZZ', '%E0%A4%A']
const FIELD = {
  'saved-item': 'itemId',
  folder: 'folderId',
  import: 'importId',
  webhook: 'webhookId',
  highlight: 'highlightId',
} as const satisfies Record<string, keyof RouteIds>

let h: Harness
let token: string
let seeded: RouteIds

beforeAll(async () => {
  h = await createHarness({ env: { RATE_LIMIT_MAX: '100000' } })
  token = await (await h.user('broken-ids@example.com')).key()
  seeded = await seedPerson(h, token, 'broken')
})

describe('a path id that is not valid percent-encoding', () => {
  for (const endpoint of ENDPOINTS) {
    const foreign = endpoint.foreign
    if (foreign === null) continue
    test(`${endpoint.method} ${endpoint.pattern}: ${foreign.status}${'tag' in foreign ? ` ${foreign.tag}` : ''}`, async () => {
      for (const broken of BROKEN) {
        const ids = { ...seeded, [FIELD[foreign.resource]]: broken }
        const path = endpoint.path(ids)
        expect(path).toContain(broken)
        const reply = await h.call(endpoint.method, path, { token, body: endpoint.body?.(ids) })
        if (!('tag' in foreign)) {
          expect({ path, status: reply.status, text: reply.text }).toEqual({ path, status: 204, text: '' })
          continue
        }
        expect({ path, status: reply.status }).toEqual({ path, status: 404 })
        expect(reply.body).toEqual({ _tag: foreign.tag, message: expect.any(String), [foreign.field]: broken })
      }
    })
  }
})
