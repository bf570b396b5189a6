import { describe, expect, test } from 'bun:test'
import { verifyPassword } from '../../adapters/app/passwords.ts'
import { createHarness } from '../helpers/harness.ts'
import { userWithPassword } from './fixtures.ts'
import { WebClient, textOf, type Page } from './web-client.ts'

// Sign-up must not tell a visitor which emails have accounts: the same answer and the same work either
// way; the owner learns of the attempt in settings (docs/security.md#sign-up-and-sign-in).

const env = { IP_RATE_LIMIT_MAX: '1000' }

/** What a visitor can observe of an answer: status, location, header names, body; cookie values vary by design. */
function observable(page: Page): unknown {
  const headers = [...page.headers.keys()].filter((name) => name !== 'x-request-id' && name !== 'set-cookie').sort()
  return {
    status: page.status,
    location: page.location,
    headers,
    cookies: page.setCookies.map((c) => c.split('=')[0]),
    body: page.text,
  }
}

describe('sign-up with a taken email', () => {
  test('answers exactly as for a new email, changes nothing of the owner, and is recorded for them', async () => {
    const h = await createHarness({ env })
    const id = await userWithPassword(h, 'taken@example.com', 'the owner password')
    const fresh = await new WebClient(h).submitSignUp('new@example.com', 'a guessed password')
    const taken = await new WebClient(h).submitSignUp('Taken@Example.com', 'a guessed password')
    expect(observable(taken)).toEqual(observable(fresh))
    expect(taken).toMatchObject({ status: 303, location: '/sign-in?signed-up=1' })

    const row = (
      await h.db.$client.execute({
        sql: 'SELECT password_hash, signup_attempted_at FROM users WHERE id = ?',
        args: [id],
      })
    ).rows[0]!
    expect(await verifyPassword(String(row.password_hash), 'the owner password')).toBe(true)
    expect(row.signup_attempted_at).toBe(h.clock.now().toISOString())
    expect(h.logs).toContainEqual(expect.objectContaining({ msg: 'sign-up for an existing account', userId: id }))
    expect(JSON.stringify(h.logs)).not.toContain('a guessed password')
    // The guessed password does not open the account.
    const attempt = await new WebClient(h).signIn('taken@example.com', 'a guessed password')
    expect(attempt.status).toBe(401)

    // The owner sees it in settings for 30 days.
    const web = new WebClient(h)
    await web.signIn('taken@example.com', 'the owner password')
    expect(textOf((await web.get('/settings')).text)).toContain('Someone tried to create an account with your email on')
    h.clock.advance(31 * 86_400_000)
    await web.signIn('taken@example.com', 'the owner password')
    expect(textOf((await web.get('/settings')).text)).not.toContain('Someone tried to create an account')
  })

  test('takes comparable time: both hash the password', async () => {
    const h = await createHarness({ env })
    await userWithPassword(h, 'timed@example.com', 'the owner password')
    const median = async (email: (i: number) => string): Promise<number> => {
      const times: number[] = []
      for (let i = 0; i < 7; i++) {
        const web = new WebClient(h)
        await web.get('/sign-up')
        const started = performance.now()
        await web.post('/sign-up', { email: email(i), password: 'long enough' })
        times.push(performance.now() - started)
      }
      return times.sort((a, b) => a - b)[3]!
    }
    const taken = await median(() => 'timed@example.com')
    const fresh = await median((i) => `fresh-${i}@example.com`)
    expect(fresh).toBeGreaterThan(5)
    // Loose bounds (a shared machine); skipping the hash for a taken email would answer in a tenth of the time.
    expect(taken).toBeGreaterThan(fresh * 0.25)
    expect(taken).toBeLessThan(fresh * 4)
  })
})
