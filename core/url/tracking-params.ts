/**
 * Query parameters that only say how a visitor arrived, never what the page is.
 * `utm_*` is handled by {@link isTrackingParam} as a prefix, not listed here.
 * @see docs/url-normalization.md
 */
export const TRACKING_PARAMS: ReadonlySet<string> = new Set([
  'fbclid',
  'gclid',
  'dclid',
  'gbraid',
  'wbraid',
  'msclkid',
  'mc_cid',
  'mc_eid',
  'igshid',
  'yclid',
  '_hsenc',
  '_hsmi',
  'mkt_tok',
  'ref_src',
])

/**
 * Whether a (decoded) query parameter name is a tracking parameter: any `utm_*` or one of
 * {@link TRACKING_PARAMS}.
 * @see docs/url-normalization.md
 */
export function isTrackingParam(name: string): boolean {
  // Compared case-insensitively: `UTM_SOURCE` and `FBCLID` are the same campaign noise written by
  // hand-made links, and no site uses them as a meaningful parameter that differs by case.
  const lower = name.toLowerCase()
  return lower.startsWith('utm_') || TRACKING_PARAMS.has(lower)
}
