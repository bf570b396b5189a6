import { Elysia } from 'elysia'
import { hashPassword, verifyPassword } from '../../app/passwords.ts'
import { passwordProblem } from '../../../core/auth/passwords.ts'
import type { RouteContext } from '../route-context.ts'
import { createAccount, findAccountByEmail, recordSignupAttempt } from '../../app/accounts.ts'
import { signInPath } from './forms.ts'
import { emailProblem } from '../../../core/auth/email.ts'
import { signInPage } from './pages/sign-in.ts'
import { signOutPage } from './pages/sign-out.ts'
import { signUpClosedPage, signUpPage } from './pages/sign-up.ts'
import { createSession, invalidateSession, SESSION_DAYS } from '../../app/web-sessions.ts'
import { accountThrottle } from '../limits.ts'
import { formRoute, hidden, type FormHandler, type Visit, type WebKit } from './kit.ts'

const WRONG_CREDENTIALS = 'Wrong email or password.'
const SIGNED_UP = 'If this email had no account, it has one now: sign in with the password you chose.'

/** Sign-up, sign-in and sign-out (docs/web.md#pages, docs/security.md#sign-up-and-sign-in). */
export function accountRoutes(kit: WebKit, guard: RouteContext['guard']) {
  const { deps, signupOpen, newId, page, redirect, sessionCookie, run, posted, nextOf, rotateCsrf } = kit
  // Unknown emails are checked against this too, so both failures of sign-in take the same time.
  let dummyHash: Promise<string> | undefined
  const timingDummy = (): Promise<string> => (dummyHash ??= hashPassword(`timing-equaliser-${newId()}`))

  async function startSession(visit: Visit, userId: string, next: string): Promise<Response> {
    // A fresh token on every sign-in: a session id planted before sign-in is never promoted (fixation).
    if (visit.session) await invalidateSession(deps, visit.session.tokenHash)
    const token = await createSession(deps, userId)
    visit.cookies.push(sessionCookie(token, SESSION_DAYS * 86_400))
    rotateCsrf(visit)
    return redirect(visit, next)
  }

  const showSignUp = async (visit: Visit): Promise<Response> => {
    if (!signupOpen) return page(visit, 403, 'Sign-up is closed', signUpClosedPage())
    const next = nextOf(visit.url.searchParams.get('next'))
    if (visit.session) return redirect(visit, next)
    return page(visit, 200, 'Create account', signUpPage({ csrf: visit.csrf, next }))
  }

  const signUp: FormHandler = async (visit, form) => {
    if (!signupOpen) return page(visit, 403, 'Sign-up is closed', signUpClosedPage())
    const email = (form.get('email') ?? '').trim()
    const password = form.get('password') ?? ''
    const next = nextOf(form.get('next'))
    const again = (status: number, error: string): Response =>
      page(visit, status, 'Create account', signUpPage({ csrf: visit.csrf, next, email, error }))
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
    return redirect(visit, `${signInPath(next)}${next === '/' ? '?' : '&'}signed-up=1`)
  }

  const showSignIn = async (visit: Visit): Promise<Response> => {
    const next = nextOf(visit.url.searchParams.get('next'))
    if (visit.session) return redirect(visit, next)
    const notice = visit.url.searchParams.get('signed-up') === '1' ? SIGNED_UP : null
    return page(visit, 200, 'Sign in', signInPage({ csrf: visit.csrf, next, signupOpen, notice }))
  }

  const signIn: FormHandler = async (visit, form) => {
    const email = (form.get('email') ?? '').trim()
    const password = form.get('password') ?? ''
    const next = nextOf(form.get('next'))
    // Per account on top of the per-IP limit: guesses spread over many addresses still stop. Keyed by the
    // email, account or not, so the lock tells nothing about who has one (docs/security.md#sign-up-and-sign-in).
    const throttle = await accountThrottle(deps, email)
    if (throttle.locked) {
      return page(
        visit,
        429,
        'Sign in',
        signInPage({ csrf: visit.csrf, next, email, error: throttle.message, signupOpen }),
      )
    }
    const user = email ? await findAccountByEmail(deps, email) : null
    // Same work and the same answer whether the email is unknown or the password wrong: no account probing.
    const valid = user
      ? await verifyPassword(user.passwordHash, password)
      : (await verifyPassword(await timingDummy(), password), false)
    if (!user || !valid) {
      await throttle.fail()
      return page(
        visit,
        401,
        'Sign in',
        signInPage({ csrf: visit.csrf, next, email, error: WRONG_CREDENTIALS, signupOpen }),
      )
    }
    return startSession(visit, user.id, next)
  }

  const showSignOut = async (visit: Visit): Promise<Response> =>
    visit.session
      ? page(visit, 200, 'Sign out', signOutPage({ csrf: visit.csrf, email: visit.session.email }))
      : redirect(visit, '/sign-in')

  const signOut: FormHandler = async (visit) => {
    if (visit.session) await invalidateSession(deps, visit.session.tokenHash)
    visit.cookies.push(sessionCookie('', 0))
    rotateCsrf(visit)
    return redirect(visit, '/sign-in')
  }

  // Sign-in and sign-up each have their own per-IP bucket, refused with a page: account creation is as
  // abusable as sign-in.
  return new Elysia()
    .use(guard)
    .get('/sign-up', run(showSignUp), hidden)
    .post('/sign-up', posted(signUp), { ...formRoute, ipLimit: 'page' })
    .get('/sign-in', run(showSignIn), hidden)
    .post('/sign-in', posted(signIn), { ...formRoute, ipLimit: 'page' })
    .get('/sign-out', run(showSignOut), hidden)
    .post('/sign-out', posted(signOut), formRoute)
}
