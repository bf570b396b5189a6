import { test } from 'node:test'
import assert from 'node:assert/strict'
import { MAX_FOLDER_NAME_LENGTH, normalizeFolderName } from '../../../core/folders/folder-name.ts'

function assertRejected(raw: string, message: RegExp): void {
  assert.throws(
    () => normalizeFolderName(raw),
    (error: unknown) => {
      assert.equal((error as { _tag?: unknown })._tag, 'InvalidFolderNameError')
      assert.match((error as Error).message, message)
      return true
    },
  )
}

test('normalizeFolderName() trims surrounding whitespace', () => {
  assert.deepEqual(normalizeFolderName('  a  '), { name: 'a', key: 'a' })
  assert.deepEqual(normalizeFolderName('\u00a0\u3000Reading list\t\n'), { name: 'Reading list', key: 'reading list' })
})

test('normalizeFolderName() keeps the case in name and lowercases the key', () => {
  assert.deepEqual(normalizeFolderName('Work'), { name: 'Work', key: 'work' })
  assert.equal(normalizeFolderName('Work').key, normalizeFolderName('work').key)
  assert.equal(normalizeFolderName('ÉCOLE').key, 'école')
})

test('normalizeFolderName() gives NFD and NFC input the same name and key', () => {
  const nfd = 'Cafe\u0301'
  const nfc = 'Caf\u00e9'
  assert.notEqual(nfd, nfc)
  assert.deepEqual(normalizeFolderName(nfd), normalizeFolderName(nfc))
  assert.equal(normalizeFolderName(nfd).name, nfc)
})

test('normalizeFolderName() accepts exactly MAX_FOLDER_NAME_LENGTH characters', () => {
  assert.equal(MAX_FOLDER_NAME_LENGTH, 100)
  assert.equal(normalizeFolderName('a'.repeat(100)).name.length, 100)
})

test('normalizeFolderName() rejects 101 characters', () => {
  assertRejected('a'.repeat(101), /^Cannot use folder name: it is 101 characters long, the limit is 100$/)
})

test('normalizeFolderName() counts code points, so 100 emoji fit', () => {
  const name = '📚'.repeat(100)
  assert.equal(name.length, 200)
  assert.equal(normalizeFolderName(name).name, name)
  assertRejected('📚'.repeat(101), /it is 101 characters long/)
})

test('normalizeFolderName() accepts ZWJ emoji sequences and other format characters', () => {
  assert.equal(normalizeFolderName('👨\u200d👩\u200d👧 family').name, '👨\u200d👩\u200d👧 family')
  assert.equal(
    normalizeFolderName('\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645').name,
    '\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645',
  )
})

test('normalizeFolderName() rejects empty and whitespace-only names', () => {
  for (const raw of ['', ' ', '\t\n', '\u00a0\u2003']) {
    assertRejected(raw, /^Cannot use folder name: it is empty or only whitespace$/)
  }
})

test('normalizeFolderName() rejects inner control characters', () => {
  assertRejected('a\tb', /^Cannot use folder name: it contains the control character U\+0009$/)
  assertRejected('a\nb', /U\+000A$/)
  assertRejected('a\u0000b', /U\+0000$/)
  assertRejected('a\u007fb', /U\+007F$/)
  assertRejected('a\u0085b', /U\+0085$/)
  assertRejected('a\u2028b', /U\+2028$/)
  assertRejected('a\u2029b', /U\+2029$/)
})

test('normalizeFolderName() rejects unpaired surrogates', () => {
  assertRejected('a\ud800b', /U\+D800$/)
})

test('normalizeFolderName() rejects names with no visible character (fillers, blanks, format characters only)', () => {
  for (const raw of [
    '\u3164',
    '\u115f',
    '\u1160',
    '\uffa0',
    '\u034f',
    '\u2800',
    '\u3164\u2800 ',
    '\u200d',
    ' \u200b\u3164 ',
  ]) {
    assertRejected(raw, /^Cannot use folder name: it has no visible character$/)
  }
  // A filler among visible characters is only odd, and the name is shown to its owner alone.
  assert.equal(normalizeFolderName('Read \u3164later').name, 'Read \u3164later')
})
