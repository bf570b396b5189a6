import ipaddr from 'ipaddr.js'

/**
 * Cloud metadata endpoints. Each already falls in a refused range (link-local, unique-local,
 * CGNAT, reserved); they are listed so that a future ipaddr.js reclassification cannot open them.
 */
const METADATA_ADDRESSES = new Set(['169.254.169.254', 'fd00:ec2:0:0:0:0:0:254', '100.100.100.200', '192.0.0.192'])

type Parsed = ipaddr.IPv4 | ipaddr.IPv6

/**
 * Only canonical text is accepted: ipaddr.js also reads forms such as `0127.0.0.1` (octal) or
 * `1.2.3`, and a second parser could read them differently from the one that connects.
 */
function parseStrict(ip: string): Parsed | null {
  const text = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) return ipaddr.IPv4.parse(text)
  if (ipaddr.IPv6.isValid(text)) return ipaddr.IPv6.parse(text)
  return null
}

/** `::a.b.c.d` (deprecated IPv4-compatible, ::/96) is 'unicast' to ipaddr.js yet routes nowhere public. */
function isIpv4Compatible(address: ipaddr.IPv6): boolean {
  const parts = address.parts
  return parts.slice(0, 6).every((part) => part === 0)
}

/** The ipaddr.js range name, with IPv4-mapped IPv6 shown as `ipv4Mapped:<range of the IPv4 address>`. */
export function describeAddressRange(ip: string): string {
  const address = parseStrict(ip)
  if (!address) return 'invalid'
  if (address.kind() === 'ipv6') {
    const v6 = address as ipaddr.IPv6
    if (v6.isIPv4MappedAddress()) return `ipv4Mapped:${describeAddressRange(v6.toIPv4Address().toString())}`
    if (isIpv4Compatible(v6) && v6.range() === 'unicast') return 'ipv4Compatible'
  }
  if (METADATA_ADDRESSES.has(address.toNormalizedString())) return 'cloudMetadata'
  return address.range()
}

/**
 * Whether an address may be fetched: only the global unicast range. IPv4-mapped IPv6 is refused
 * outright (docs/enrichment.md lists it), whatever IPv4 address it wraps; DNS never needs to return one.
 */
export function isPublicAddress(ip: string): boolean {
  return describeAddressRange(ip) === 'unicast'
}
