import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import * as errors from '../../core/errors.ts'
import {
  APP_ERRORS,
  INTERNAL_ERROR,
  isAppError,
  toErrorBody,
  type AppErrorTag,
  type ErrorEntry,
} from '../../core/errors.ts'

// core/errors.ts holds the one table of typed errors (APP_ERRORS): the HTTP statuses, the union type, the
// tag set, the wire bodies and the OpenAPI error schemas all read it. These tests hold the table to the
// classes beside it and to the statuses docs/api.md#errors promises.

type ErrorClass = new (...args: string[]) => Error & { _tag: string }

/** The error classes a module exports (its functions whose instances are Errors). */
function errorClassesOf(module: Record<string, unknown>): ErrorClass[] {
  return Object.values(module).filter(
    (value): value is ErrorClass => typeof value === 'function' && value.prototype instanceof Error,
  )
}

/** The exported error classes of `module` that have no row in `table` (by their `_tag`), by class name. */
function classesWithoutRow(module: Record<string, unknown>, table: Record<string, { error: unknown }>): string[] {
  return errorClassesOf(module)
    .filter((error) => {
      const tag = new error('a', 'b')._tag
      return !Object.hasOwn(table, tag) || table[tag]!.error !== error
    })
    .map((error) => error.name)
}

const entries = Object.entries(APP_ERRORS) as [AppErrorTag, ErrorEntry & { error: ErrorClass }][]

test('every error class of core/errors.ts has its row in APP_ERRORS, under its own _tag', () => {
  assert.deepEqual(classesWithoutRow(errors, APP_ERRORS), [])
  assert.equal(errorClassesOf(errors).length, entries.length)
  for (const [tag, entry] of entries) assert.equal(new entry.error('a', 'b')._tag, tag)
})

test('a class added without a row is noticed', () => {
  class UnlistedError extends Error {
    readonly _tag = 'UnlistedError'
  }
  assert.deepEqual(classesWithoutRow({ ...errors, UnlistedError }, APP_ERRORS), ['UnlistedError'])
  const { ValidationError: _, ...withoutValidation } = APP_ERRORS
  assert.deepEqual(classesWithoutRow(errors, withoutValidation), ['ValidationError'])
})

test('every tag maps to the status docs/api.md#errors gives it, and InternalError to 500', () => {
  const docs = readFileSync(join(dirname(fileURLToPath(import.meta.url)), '../../docs/api.md'), 'utf8')
  const section = docs.slice(docs.indexOf('\n## Errors'), docs.indexOf('\n## ', docs.indexOf('\n## Errors') + 1))
  const documented = new Map(
    [...section.matchAll(/^\| `(\w+)` \| (\d{3}) \|/gm)].map((match) => [match[1]!, Number(match[2])]),
  )
  const table = new Map<string, number>(entries.map(([tag, entry]) => [tag, entry.status]))
  table.set(INTERNAL_ERROR._tag, INTERNAL_ERROR.status)
  assert.deepEqual(
    [...table].sort(([a], [b]) => a.localeCompare(b)),
    [...documented].sort(([a], [b]) => a.localeCompare(b)),
  )
  for (const [, entry] of entries) assert.ok(entry.status >= 400 && entry.status < 500)
})

test('an instance of every class is an AppError, and its body is _tag, message and its own fields', () => {
  for (const [tag, entry] of entries) {
    const error = new entry.error('some-value', 'some message')
    assert.ok(isAppError(error), tag)
    const body = toErrorBody(error as never)
    assert.deepEqual(Object.keys(body), ['_tag', 'message', ...Object.keys(entry.fields ?? {})], tag)
    assert.equal(body._tag, tag)
    assert.equal(body.message, error.message)
    for (const field of Object.keys(entry.fields ?? {}))
      assert.equal(body[field], (error as unknown as Record<string, unknown>)[field], `${tag}.${field}`)
  }
  // Across realms, only the tag counts; an unknown tag, or one inherited from Object, is not ours.
  assert.ok(isAppError({ _tag: 'FolderNotFoundError', message: 'x', folderId: 'f' }))
  for (const value of [{ _tag: 'toString' }, { _tag: 'InternalError' }, { _tag: 'Nope' }, null, 'ValidationError'])
    assert.equal(isAppError(value), false)
})
