import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mergeRecapture, prepareCapture } from '../../../core/items/capture.ts'
import { InvalidUrlError } from '../../../core/errors.ts'

const context = {
  id: '0190f5e3-1c2d-7a4b-8c5d-6e7f8a9b0c1d',
  userId: '0190f5e3-0000-7000-8000-000000000001',
  now: new Date('2026-11-22T10:04:05.123Z'),
  connectClient: null,
}

test('prepareCapture() builds the first-capture row with every field', () => {
  const prepared = prepareCapture({ url: ' https://www.Example.com/a/?utm_source=x&z=1&b=2#frag ' }, context)
  assert.deepEqual(prepared, {
    explicitChannel: null,
    row: {
      id: context.id,
      userId: context.userId,
      originalUrl: 'https://www.Example.com/a/?utm_source=x&z=1&b=2#frag',
      normalizedUrl: 'https://example.com/a?b=2&z=1',
      host: 'example.com',
      type: 'website',
      tags: [],
      enrichmentStatus: 'pending',
      sourceName: null,
      captureChannel: 'api',
      folderId: null,
      isRead: false,
      lastSavedAt: '2026-11-22T10:04:05.123Z',
      createdAt: '2026-11-22T10:04:05.123Z',
      updatedAt: '2026-11-22T10:04:05.123Z',
    },
  })
})

test('prepareCapture() keeps the given sourceName, channel and folder and deduplicates tags in order', () => {
  const { row, explicitChannel } = prepareCapture(
    {
      url: 'https://github.com/oven-sh/bun',
      sourceName: 'Newsletter',
      captureChannel: 'ios-app',
      tags: ['tools', 'typescript', 'tools', 'ai', 'typescript'],
      folderId: 'folder-1',
    },
    context,
  )
  assert.equal(explicitChannel, 'ios-app')
  assert.equal(row.captureChannel, 'ios-app')
  assert.equal(row.sourceName, 'Newsletter')
  assert.equal(row.folderId, 'folder-1')
  assert.deepEqual(row.tags, ['tools', 'typescript', 'ai'])
  assert.equal(row.type, 'repository')
})

test('prepareCapture() guesses video for a YouTube watch URL', () => {
  assert.equal(prepareCapture({ url: 'https://youtube.com/watch?v=abc' }, context).row.type, 'video')
})

test('prepareCapture() treats null optional fields as absent', () => {
  const { row, explicitChannel } = prepareCapture(
    { url: 'https://example.com', sourceName: null, captureChannel: null, tags: null, folderId: null },
    context,
  )
  assert.equal(explicitChannel, null)
  assert.equal(row.captureChannel, 'api')
  assert.equal(row.sourceName, null)
  assert.deepEqual(row.tags, [])
  assert.equal(row.folderId, null)
})

test('prepareCapture() defaults the channel to the connect client of the key', () => {
  for (const client of ['chrome-extension', 'raycast'] as const) {
    const prepared = prepareCapture({ url: 'https://example.com' }, { ...context, connectClient: client })
    assert.equal(prepared.row.captureChannel, client)
    assert.equal(prepared.explicitChannel, null)
  }
})

test('prepareCapture() lets an explicit channel win over the connect client', () => {
  const prepared = prepareCapture(
    { url: 'https://example.com', captureChannel: 'web-companion' },
    { ...context, connectClient: 'raycast' },
  )
  assert.equal(prepared.row.captureChannel, 'web-companion')
  assert.equal(prepared.explicitChannel, 'web-companion')
})

test("prepareCapture() does not share the caller's tags array", () => {
  const tags = ['ai'] as const
  const { row } = prepareCapture({ url: 'https://example.com', tags: [...tags] }, context)
  row.tags.push('tools')
  assert.deepEqual(tags, ['ai'])
})

test('prepareCapture() throws InvalidUrlError for URLs that are not absolute http(s)', () => {
  for (const url of [
    'ftp://example.com/',
    'javascript:alert(1)',
    '/relative',
    'https://u:p@example.com/',
    `https://example.com/${'a'.repeat(8200)}`,
  ]) {
    assert.throws(
      () => prepareCapture({ url }, context),
      (error: unknown) => {
        assert.ok(error instanceof InvalidUrlError)
        assert.equal(error._tag, 'InvalidUrlError')
        assert.equal(error.url, url)
        return true
      },
      url,
    )
  }
})

// The recapture merge (docs/api.md#captures); test/storage/protocol-ports.test.ts holds each driver's upsert to it.
const stored = {
  sourceName: 'Stored',
  captureChannel: 'raycast' as const,
  tags: ['ai' as const, 'tools' as const],
  folderId: 'folder-a',
  isRead: true,
  enrichmentStatus: 'done',
  lastSavedAt: '2026-11-01T00:00:00.000Z',
  updatedAt: '2026-11-02T00:00:00.000Z',
}
const recapture = (input: Omit<Parameters<typeof prepareCapture>[0], 'url'>) =>
  prepareCapture({ url: 'https://example.com/a', ...input }, context)

test('mergeRecapture: a bare recapture keeps what is stored, puts the item back unread, saved now', () => {
  assert.deepEqual(mergeRecapture(stored, recapture({})), {
    ...stored,
    isRead: false,
    lastSavedAt: '2026-11-22T10:04:05.123Z',
    updatedAt: '2026-11-22T10:04:05.123Z',
  })
})

test('mergeRecapture: named source, channel and folder replace; tags append after the stored ones', () => {
  const merged = mergeRecapture(
    stored,
    recapture({ sourceName: 'New', captureChannel: 'ios-app', folderId: 'folder-b', tags: ['design', 'ai'] }),
  )
  assert.equal(merged.sourceName, 'New')
  assert.equal(merged.captureChannel, 'ios-app')
  assert.equal(merged.folderId, 'folder-b')
  assert.deepEqual(merged.tags, ['ai', 'tools', 'design'])
})

test('mergeRecapture: a failed enrichment goes back to pending; others stay', () => {
  for (const [before, after] of [
    ['failed', 'pending'],
    ['pending', 'pending'],
    ['done', 'done'],
  ]) {
    assert.equal(mergeRecapture({ ...stored, enrichmentStatus: before! }, recapture({})).enrichmentStatus, after)
  }
})
