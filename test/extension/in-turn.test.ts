import { describe, expect, test } from 'bun:test'
import { inTurn } from '../../extension/src/in-turn.ts'

// extension/src/in-turn.ts (docs/extension.md#the-popup): a tab's result is checked and then written; two
// such writes must never interleave, or an old result can be written back over a new save's "Saving…".

const tick = () => new Promise((done) => setTimeout(done, 1))

/** A store with no compare-and-set, like storage.session: a read and a write, each a turn of the loop. */
function store(initial: string) {
  let value = initial
  return {
    get: async () => {
      await tick()
      return value
    },
    set: async (next: string) => {
      await tick()
      value = next
    },
    now: () => value,
  }
}

/** The popup's refresh: keeps its copy only while the result is still the one it shows. */
const refresh = (s: ReturnType<typeof store>) => async () => {
  const current = await s.get()
  if (current.startsWith('saved K1')) await s.set('saved K1 (item refreshed)')
}
const newSave = (s: ReturnType<typeof store>) => () => s.set('saving K2')

describe('inTurn', () => {
  test('without it, the refresh writes the old result back over the new save (the race it is for)', async () => {
    const s = store('saved K1')
    await Promise.all([refresh(s)(), newSave(s)()])
    expect(s.now()).toBe('saved K1 (item refreshed)')
  })

  test('with it, the new save comes after the refresh and stays', async () => {
    const s = store('saved K1')
    const turn = inTurn()
    await Promise.all([turn(refresh(s)), turn(newSave(s))])
    expect(s.now()).toBe('saving K2')
  })

  test('tasks run one at a time, in the order given, and a failure does not stop the next', async () => {
    const turn = inTurn()
    const log: string[] = []
    const task =
      (name: string, fail = false) =>
      async () => {
        log.push(`${name} start`)
        await tick()
        log.push(`${name} end`)
        if (fail) throw new Error(name)
        return name
      }
    const results = await Promise.allSettled([turn(task('a')), turn(task('b', true)), turn(task('c'))])
    expect(log).toEqual(['a start', 'a end', 'b start', 'b end', 'c start', 'c end'])
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled'])
  })
})
