import { test } from 'node:test'
import assert from 'node:assert/strict'
import {
  API_KEY_PREFIX,
  apiKeyDisplayPrefix,
  generateApiKey,
  hashApiKey,
  looksLikeApiKey,
} from '../../../core/auth/api-keys.ts'
import type { RandomSource } from '../../../core/types.ts'

const zeroRandom: RandomSource = { fill: (bytes) => bytes.fill(0) }
const ffRandom: RandomSource = { fill: (bytes) => bytes.fill(0xff) }
const realRandom: RandomSource = { fill: (bytes) => crypto.getRandomValues(bytes) }

async function referenceSha256Hex(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)))
  return [...digest].map((byte) => byte.toString(16).padStart(2, '0')).join('')
}

test('generateApiKey() encodes 32 random bytes as base64url after rlk_', () => {
  assert.equal(API_KEY_PREFIX, 'rlk_')
  assert.equal(generateApiKey(zeroRandom), `rlk_${'A'.repeat(43)}`)
  assert.equal(generateApiKey(ffRandom), `rlk_${'_'.repeat(42)}8`)
})

test('generateApiKey() output always looks like an API key', () => {
  for (let i = 0; i < 50; i++) {
    const key = generateApiKey(realRandom)
    assert.equal(key.length, 47)
    assert.equal(looksLikeApiKey(key), true, key)
  }
})

test('hashApiKey() matches crypto.subtle SHA-256', async () => {
  for (const key of ['', 'rlk_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', generateApiKey(realRandom), 'naïve ✓ 🔑']) {
    assert.equal(hashApiKey(key), await referenceSha256Hex(key))
  }
})

test('hashApiKey() returns 64 lowercase hex characters', () => {
  assert.equal(hashApiKey('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad')
})

test('looksLikeApiKey() rejects other shapes', () => {
  const body = 'A'.repeat(43)
  for (const value of [
    '',
    `rlk_${'A'.repeat(42)}`,
    `rlk_${'A'.repeat(44)}`,
    `RLK_${body}`,
    `rlx_${body}`,
    `rlk_${'A'.repeat(42)}=`,
    `rlk_${'A'.repeat(42)}+`,
    ` rlk_${body}`,
    'eyJhbGciOiJFUzI1NiJ9.e30.sig',
  ]) {
    assert.equal(looksLikeApiKey(value), false, value)
  }
})

test('apiKeyDisplayPrefix() keeps the first 12 characters', () => {
  assert.equal(apiKeyDisplayPrefix('rlk_abcdefgh_rest_of_the_key'), 'rlk_abcdefgh')
})
