/** The account rules for an email address, shared by the web pages and the admin CLI. */
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/

export function emailProblem(email: string): string | null {
  if (email.length === 0) return 'Enter your email address.'
  if (email.length > 254 || !EMAIL.test(email)) return 'That does not look like an email address.'
  return null
}

/** Emails compare case-insensitively; they are stored trimmed and lowercased. */
export const canonicalEmail = (email: string): string => email.trim().toLowerCase()
