import { test } from 'node:test'
import assert from 'node:assert/strict'
import { isUuid, uuidv7 } from '../../core/ids.ts'
import type { RandomSource } from '../../core/types.ts'

function fixedRandom(values: readonly number[]): RandomSource {
  return {
    fill(bytes: Uint8Array): Uint8Array {
      for (let i = 0; i < bytes.length; i++) bytes[i] = values[i % values.length] ?? 0
      return bytes
    },
  }
}

test('uuidv7() reproduces the RFC 9562 Appendix A.6 vector', () => {
  // rand_a = 0xCC3, rand_b = 0x18C4DC0C0C07398F; the high nibbles here are overwritten by version and variant.
  const random = fixedRandom([0x0c, 0xc3, 0x18, 0xc4, 0xdc, 0x0c, 0x0c, 0x07, 0x39, 0x8f])
  assert.equal(uuidv7(0x017f22e279b0, random), '017f22e2-79b0-7cc3-98c4-dc0c0c07398f')
  assert.equal(0x017f22e279b0, 1645557742000)
})

test('uuidv7() sets version 7 and variant 10 whatever the random bytes', () => {
  for (const fill of [0x00, 0xff, 0x5a]) {
    const id = uuidv7(1645557742000, fixedRandom([fill]))
    assert.equal(id[14], '7')
    assert.match(id[19] ?? '', /^[89ab]$/)
    assert.ok(isUuid(id))
  }
})

test('uuidv7() returns lowercase canonical text', () => {
  const id = uuidv7(1_700_000_000_000, fixedRandom([0xab, 0xcd, 0xef]))
  assert.equal(id, id.toLowerCase())
  assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
})

test('uuidv7() sorts by timestamp regardless of the random part', () => {
  const ids = [0, 1, 255, 256, 1645557742000, 1645557742001, 2 ** 48 - 1].map((ms, i) =>
    uuidv7(ms, fixedRandom([i % 2 === 0 ? 0xff : 0x00])),
  )
  assert.deepEqual([...ids].sort(), ids)
  assert.equal(ids[0], '00000000-0000-7fff-bfff-ffffffffffff')
  assert.equal(ids.at(-1)?.slice(0, 13), 'ffffffff-ffff')
})

test('uuidv7() rejects timestamps outside 48 bits', () => {
  for (const ms of [-1, 2 ** 48, 1.5, Number.NaN]) {
    assert.throws(() => uuidv7(ms, fixedRandom([0])), RangeError)
  }
})

test('isUuid() accepts canonical UUIDs in either case', () => {
  assert.equal(isUuid('017f22e2-79b0-7cc3-98c4-dc0c0c07398f'), true)
  assert.equal(isUuid('017F22E2-79B0-7CC3-98C4-DC0C0C07398F'), true)
  assert.equal(isUuid('00000000-0000-0000-0000-000000000000'), true)
})

test('isUuid() rejects other shapes', () => {
  for (const value of [
    '',
    '017f22e279b07cc398c4dc0c0c07398f',
    '{017f22e2-79b0-7cc3-98c4-dc0c0c07398f}',
    '017f22e2-79b0-7cc3-98c4-dc0c0c07398',
    '017f22e2-79b0-7cc3-98c4-dc0c0c07398g',
    ' 017f22e2-79b0-7cc3-98c4-dc0c0c07398f',
  ]) {
    assert.equal(isUuid(value), false, value)
  }
})
