import { expect, test } from 'bun:test'
import { nextPageUrl } from '../../adapters/http/list-response.ts'

// docs/api.md#lists: the list's Link header names the next page. nextPageUrl writes it by concatenation
// when it can; this holds it equal to what URLSearchParams writes, for plain values and for ones it escapes.

function viaUrl(listUrl: string, sort: string, folder: string | null, limit: number | null, cursor: string): string {
  const next = new URL(listUrl)
  next.searchParams.set('sort', sort)
  if (folder !== null) next.searchParams.set('folder', folder)
  next.searchParams.set('limit', String(limit))
  next.searchParams.set('cursor', cursor)
  return next.href
}

test('the next page address is what URLSearchParams writes, plain values or not', () => {
  const bases = ['http://localhost:3000/v1/saved-items', 'https://example.com/readlater/v1/saved-items']
  const folders = [null, 'none', '01930000-0000-7000-8000-000000000001', 'a b', 'x~y', 'é', 'a&b=c', '']
  const cursors = ['WyJuZXdlc3QiLCIyMDI2Il0', 'a-b_c', 'a+b/c=', '~']
  for (const base of bases)
    for (const sort of ['newest', 'oldest', 'title'])
      for (const folder of folders)
        for (const cursor of cursors)
          for (const limit of [1, 50, null])
            expect(nextPageUrl(base, sort, folder, limit, cursor)).toBe(viaUrl(base, sort, folder, limit, cursor))
})
