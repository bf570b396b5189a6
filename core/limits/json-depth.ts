import { ValidationError } from '../errors.ts'

/** The deepest nesting of arrays and objects a JSON body may have. @see docs/api.md#limits */
export const MAX_JSON_DEPTH = 32

const QUOTE = 0x22
const BACKSLASH = 0x5c
const OPEN_ARRAY = 0x5b
const OPEN_OBJECT = 0x7b
const CLOSE_ARRAY = 0x5d
const CLOSE_OBJECT = 0x7d

/**
 * The greatest nesting depth of arrays and objects in `json`, read as JSON text without parsing it: one
 * linear pass that skips string contents, stopping as soon as `limit` is passed. Malformed text is measured
 * all the same (the parser refuses it later); what matters is that no parser or validator ever walks a
 * deeply nested value, whose cost grows with depth (a 64 KiB body of `[` once cost seconds and gigabytes).
 */
export function jsonDepth(json: Uint8Array | string, limit = Number.POSITIVE_INFINITY): number {
  // Every byte this looks at is ASCII, so UTF-8 bytes and UTF-16 code units read the same.
  const at = typeof json === 'string' ? (i: number): number => json.charCodeAt(i) : (i: number): number => json[i]!
  let depth = 0
  let deepest = 0
  let inString = false
  for (let i = 0; i < json.length; i++) {
    const byte = at(i)
    if (inString) {
      if (byte === BACKSLASH) i++
      else if (byte === QUOTE) inString = false
      continue
    }
    if (byte === QUOTE) inString = true
    else if (byte === OPEN_ARRAY || byte === OPEN_OBJECT) {
      depth++
      if (depth > deepest) {
        deepest = depth
        if (deepest > limit) return deepest
      }
    } else if (byte === CLOSE_ARRAY || byte === CLOSE_OBJECT) depth--
  }
  return deepest
}

/**
 * Throws {@link ValidationError} when a JSON body nests deeper than {@link MAX_JSON_DEPTH}.
 * @see docs/api.md#hostile-input
 */
export function requireShallowJson(json: Uint8Array | string): void {
  if (jsonDepth(json, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) {
    throw new ValidationError(`body: nested deeper than ${MAX_JSON_DEPTH} levels`)
  }
}
