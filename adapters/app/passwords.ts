import { hash, verify } from '@node-rs/argon2'

// Password hashing, runtime-specific (a native module); the password rules are core/auth/passwords.ts.
// argon2id with the OWASP minimum (19 MiB, t=2, p=1). @node-rs/argon2 hashes off the main thread.
const OPTIONS = { algorithm: 2, memoryCost: 19456, timeCost: 2, parallelism: 1 } as const

export const hashPassword = (password: string): Promise<string> => hash(password, OPTIONS)
export const verifyPassword = (phc: string, password: string): Promise<boolean> =>
  verify(phc, password).catch(() => false)
