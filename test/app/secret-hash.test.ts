import { describe, expect, test } from 'bun:test'
import { hashSecret as native } from '../../adapters/app/secret-hash.ts'
import { generateApiKey } from '../../core/auth/api-keys.ts'
import { hashSecret as reference } from '../../core/auth/secrets.ts'
import { random } from '../helpers/harness.ts'

describe('the native secret hash', () => {
  test('equals core hashSecret (the documented rule: lowercase hex SHA-256) for keys, ASCII, Unicode and empty text', () => {
    const samples = [
      '',
      'abc',
      'rlk_' + 'a'.repeat(43),
      'paßwörd 🗝️ 日本語',
      ...Array.from({ length: 50 }, () => generateApiKey(random)),
    ]
    for (const sample of samples) expect(native(sample)).toBe(reference(sample))
    // The SHA-256 test vector of FIPS 180-2, so neither side can be wrong the same way.
    expect(native('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad')
  })
})
