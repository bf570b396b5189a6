/**
 * `text` cut to at most `max` characters (UTF-16 code units) at the last paragraph break that fits (a
 * blank line); failing that, the last line break, then the last space; failing all three, at `max`
 * (never inside a surrogate pair). `truncated` says whether anything was cut. @see docs/mcp.md#tools
 */
export function cutAtParagraph(text: string, max: number): { text: string; truncated: boolean } {
  if (text.length <= max) return { text, truncated: false }
  const window = text.slice(0, max + 1)
  // A break too close to the start would throw most of the allowance away: prefer a finer one then.
  const floor = Math.floor(max / 2)
  for (const separator of ['\n\n', '\n', ' ']) {
    const at = window.lastIndexOf(separator)
    if (at >= floor) return { text: text.slice(0, at).trimEnd(), truncated: true }
  }
  let end = max
  const last = text.charCodeAt(end - 1)
  if (last >= 0xd800 && last <= 0xdbff) end--
  return { text: text.slice(0, end), truncated: true }
}
