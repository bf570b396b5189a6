import { Elysia } from 'elysia'
import { hashPassword, verifyPassword } from '../../app/passwords.ts'
import { passwordProblem } from '../../../core/auth/passwords.ts'
import type { RouteContext } from '../route-context.ts'
import { createAccount, findAccountByEmail, recordSignupAttempt } from '../../app/accounts.ts'
import { uuidv7 } from '../../../core/ids.ts'
import { safeNext, signInPath } from './forms.ts'
import { emailProblem } from '../../../core/auth/email.ts'
import { signInPage } from './pages/sign-in.ts'
import { signOutPage } from './pages/sign-out.ts'
import { signUpClosedPage, signUpPage } from './pages/sign-up.ts'
import { createSession, invalidateSession, SESSION_DAYS } from '../../app/web-sessions.ts'
import { accountThrottle } from '../limits.ts'
import { pageReplies, setCookie, type PageVisitor } from './page-replies.ts'
import { formRoute, hidden } from './route-options.ts'
import { CLEAR_OFFLINE_DATA } from './offline-routes.ts'

const WRONG_CREDENTIALS = 'Wrong email or password.'
const SIGNED_UP = 'If this email had no account, it has one now: sign in with the password you chose.'

/** Sign-up, sign-in and sign-out (docs/web.md#pages, docs/security.md#sign-up-and-sign-in). */
export function accountRoutes({ deps, guard, browser }: RouteContext) {
  const { signupOpen, page, redirect } = pageReplies(deps.config)
  const nextOf = (value: string | null | undefined): string => safeNext(value, deps.config.appUrl)
  // Unknown emails are checked against this too, so both failures of sign-in take the same time.
  let dummyHash: Promise<string> | undefined
  const timingDummy = (): Promise<string> =>
    (dummyHash ??= hashPassword(`timing-equaliser-${uuidv7(deps.clock.now().getTime(), deps.random)}`))

  /** A new CSRF token at sign-in and sign-out: one read before cannot be used with the new session. */
  function rotateCsrf(visitor: PageVisitor): void {
    const fresh = browser.newCsrf()
    visitor.csrf = fresh.token
    setCookie(visitor, fresh.setCookie)
  }

  async function startSession(visitor: PageVisitor, userId: string, next: string): Promise<Response> {
    // A fresh token on every sign-in: a session id planted before sign-in is never promoted (fixation).
    if (visitor.session) await invalidateSession(deps, visitor.session.tokenHash)
    const token = await createSession(deps, userId)
    setCookie(visitor, browser.sessionCookie(token, SESSION_DAYS * 86_400))
    rotateCsrf(visitor)
    return redirect(visitor, next)
  }

  const showSignUp = async (c: PageVisitor): Promise<Response> => {
    if (!signupOpen) return page(c, 403, 'Sign-up is closed', signUpClosedPage())
    const next = nextOf(new URL(c.request.url).searchParams.get('next'))
    if (c.session) return redirect(c, next)
    return page(c, 200, 'Create account', signUpPage({ csrf: c.csrf, next }))
  }

  const signUp = async (c: PageVisitor & { form: URLSearchParams }): Promise<Response> => {
    const { form } = c
    if (!signupOpen) return page(c, 403, 'Sign-up is closed', signUpClosedPage())
    const email = (form.get('email') ?? '').trim()
    const password = form.get('password') ?? ''
    const next = nextOf(form.get('next'))
    const again = (status: number, error: string): Response =>
      page(c, status, 'Create account', signUpPage({ csrf: c.csrf, next, email, error }))
    const problem = emailProblem(email) ?? passwordProblem(password)
    if (problem) return again(422, problem.charAt(0).toUpperCase() + problem.slice(1).replace(/[^.]$/, '$&.'))
    // The same work and the same answer whether or not the email has an account, so sign-up cannot be
    // used to find out who uses this server (docs/security.md#sign-up-and-sign-in). The owner of a taken
    // email sees the attempt in settings instead; a new account signs in like everyone else.
    const account = await createAccount(deps, { email, password })
    if (account.kind === 'email-taken') {
      const owner = await recordSignupAttempt(deps, email)
      deps.log('info', { msg: 'sign-up for an existing account', userId: owner })
    } else {
      deps.log('info', { msg: 'account created', userId: account.id, via: 'web' })
    }
    return redirect(c, `${signInPath(next)}${next === '/' ? '?' : '&'}signed-up=1`)
  }

  const showSignIn = async (c: PageVisitor): Promise<Response> => {
    const params = new URL(c.request.url).searchParams
    const next = nextOf(params.get('next'))
    if (c.session) return redirect(c, next)
    const notice = params.get('signed-up') === '1' ? SIGNED_UP : null
    return page(c, 200, 'Sign in', signInPage({ csrf: c.csrf, next, signupOpen, notice }))
  }

  const signIn = async (c: PageVisitor & { form: URLSearchParams }): Promise<Response> => {
    const { form } = c
    const email = (form.get('email') ?? '').trim()
    const password = form.get('password') ?? ''
    const next = nextOf(form.get('next'))
    // Per account on top of the per-IP limit: guesses spread over many addresses still stop. Keyed by the
    // email, account or not, so the lock tells nothing about who has one (docs/security.md#sign-up-and-sign-in).
    const throttle = await accountThrottle(deps, email)
    if (throttle.locked) {
      return page(c, 429, 'Sign in', signInPage({ csrf: c.csrf, next, email, error: throttle.message, signupOpen }))
    }
    const user = email ? await findAccountByEmail(deps, email) : null
    // Same work and the same answer whether the email is unknown or the password wrong: no account probing.
    const valid = user
      ? await verifyPassword(user.passwordHash, password)
      : (await verifyPassword(await timingDummy(), password), false)
    if (!user || !valid) {
      await throttle.fail()
      return page(c, 401, 'Sign in', signInPage({ csrf: c.csrf, next, email, error: WRONG_CREDENTIALS, signupOpen }))
    }
    return startSession(c, user.id, next)
  }

  const showSignOut = async (c: PageVisitor): Promise<Response> =>
    c.session
      ? page(c, 200, 'Sign out', signOutPage({ csrf: c.csrf, email: c.session.email }))
      : redirect(c, '/sign-in')

  const signOut = async (c: PageVisitor): Promise<Response> => {
    if (c.session) await invalidateSession(deps, c.session.tokenHash)
    setCookie(c, browser.sessionCookie('', 0))
    rotateCsrf(c)
    const answer = redirect(c, '/sign-in')
    // The pages, articles and queued actions the browser kept for reading offline go with the session, so
    // the next person at this browser finds none of them (docs/security.md#offline-storage).
    answer.headers.set('clear-site-data', CLEAR_OFFLINE_DATA)
    return answer
  }

  // Sign-in and sign-up each have their own per-IP bucket, refused with a page: account creation is as
  // abusable as sign-in.
  return new Elysia()
    .use(guard)
    .get('/sign-up', showSignUp, { ...hidden, session: true })
    .post('/sign-up', signUp, { ...formRoute, session: true, ipLimit: 'page' })
    .get('/sign-in', showSignIn, { ...hidden, session: true })
    .post('/sign-in', signIn, { ...formRoute, session: true, ipLimit: 'page' })
    .get('/sign-out', showSignOut, { ...hidden, session: true })
    .post('/sign-out', signOut, { ...formRoute, session: true })
}
