import { hash, verify } from '@node-rs/argon2'

// argon2id with the OWASP minimum (19 MiB, t=2, p=1). @node-rs/argon2 hashes off the main thread.
const OPTIONS = { algorithm: 2, memoryCost: 19456, timeCost: 2, parallelism: 1 } as const

export const MIN_PASSWORD_LENGTH = 8
export const MAX_PASSWORD_LENGTH = 256

export function passwordProblem(password: string): string | null {
  if (password.length < MIN_PASSWORD_LENGTH) return `password must be at least ${MIN_PASSWORD_LENGTH} characters`
  if (password.length > MAX_PASSWORD_LENGTH) return `password must be at most ${MAX_PASSWORD_LENGTH} characters`
  return null
}

export const hashPassword = (password: string): Promise<string> => hash(password, OPTIONS)
export const verifyPassword = (phc: string, password: string): Promise<boolean> =>
  verify(phc, password).catch(() => false)
