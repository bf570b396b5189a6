import { test } from 'node:test'
import assert from 'node:assert/strict'
import { andThen, isPending, settle } from '../../core/at-once.ts'

// core/at-once.ts (docs/benchmarks.md#answered-at-once): a step goes on at once with a value that is already
// there, and after it settles with one that is to come; a failure reaches the same handler either way, as an
// async function's try/catch would.

test('andThen, a value that is here: the next step runs now and its value comes back as it is', () => {
  const steps: string[] = []
  const answer = andThen(2, (n) => {
    steps.push('next')
    return n * 3
  })
  steps.push('after')
  assert.equal(answer, 6)
  assert.deepEqual(steps, ['next', 'after'])
})

test('andThen, a promise: the next step runs once it settles, and the answer is a promise', async () => {
  const steps: string[] = []
  const answer = andThen(Promise.resolve(2), (n) => {
    steps.push('next')
    return n * 3
  })
  steps.push('after')
  assert.equal(isPending(answer), true)
  assert.equal(await answer, 6)
  assert.deepEqual(steps, ['after', 'next'])
})

test('andThen, a rejection passes through without running the next step', async () => {
  let ran = false
  const answer = andThen(Promise.reject(new Error('no row')), () => {
    ran = true
    return 1
  })
  await assert.rejects(Promise.resolve(answer), /no row/)
  assert.equal(ran, false)
})

const failed = (error: unknown) => `failed: ${(error as Error).message}`
const sent = (value: string) => `sent ${value}`

test('settle, a value now: next, at once', () => {
  assert.equal(
    settle(() => 'page', sent, failed),
    'sent page',
  )
})

test('settle, a throw now: failed, at once', () => {
  const answer = settle(
    (): string => {
      throw new Error('bad cursor')
    },
    sent,
    failed,
  )
  assert.equal(answer, 'failed: bad cursor')
})

test('settle, a rejection later: failed, once it settles', async () => {
  const answer = settle(() => Promise.reject<string>(new Error('database gone')), sent, failed)
  assert.equal(isPending(answer), true)
  assert.equal(await answer, 'failed: database gone')
})

test('settle, a failure of next itself is not handed to failed (as promise.then(next, failed))', async () => {
  const boom = (): string => {
    throw new Error('in next')
  }
  assert.throws(() => settle(() => 'page', boom, failed), /in next/)
  await assert.rejects(Promise.resolve(settle(() => Promise.resolve('page'), boom, failed)), /in next/)
})

test('isPending: promises and thenables are pending; values, arrays and null are not', () => {
  assert.equal(isPending(Promise.resolve(1)), true)
  assert.equal(isPending({ then: () => {} } as unknown as Promise<number>), true)
  assert.equal(isPending([1, 2]), false)
  assert.equal(isPending(null), false)
  assert.equal(isPending(0), false)
})
