/** A command line the admin CLI cannot use: one line on stderr, exit 2. */
export class UsageError extends Error {}

export interface FlagSpec {
  /** Flags that take a value and must be given. */
  required?: readonly string[]
  /** Flags that take a value and may be left out. */
  optional?: readonly string[]
  /** Flags without a value. */
  switches?: readonly string[]
}

/**
 * Reads `--name value`, `--name=value` and `--switch`. Anything else (positional words, unknown or repeated
 * flags, a value that looks like a flag) is a UsageError naming it.
 */
export function parseFlags(args: readonly string[], spec: FlagSpec): Record<string, string> {
  const valued = [...(spec.required ?? []), ...(spec.optional ?? [])]
  const switches = spec.switches ?? []
  const flags: Record<string, string> = {}
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    const match = /^--([a-z-]+)(?:=(.*))?$/.exec(arg)
    const name = match?.[1]
    if (!match || !name || (!valued.includes(name) && !switches.includes(name)))
      throw new UsageError(`unknown argument "${arg}"`)
    if (flags[name] !== undefined) throw new UsageError(`--${name} given twice`)
    if (switches.includes(name)) {
      if (match[2] !== undefined) throw new UsageError(`--${name} takes no value`)
      flags[name] = 'true'
      continue
    }
    const value = match[2] ?? args[++i]
    if (value === undefined || (match[2] === undefined && value.startsWith('--')))
      throw new UsageError(`--${name} needs a value`)
    flags[name] = value
  }
  for (const name of spec.required ?? []) if (flags[name] === undefined) throw new UsageError(`missing --${name}`)
  return flags
}

/** A password given on stdin: one line, its line ending removed (nothing else is trimmed). */
export function passwordFromStdin(text: string): string {
  return text.replace(/\r?\n$/, '')
}
