import { describe, expect, test } from 'bun:test'
import { describeAddressRange, isPublicAddress } from '../../adapters/enrichment/address-policy.ts'

const REFUSED: Array<[string, string]> = [
  ['127.0.0.1', 'loopback'],
  ['127.5.5.5', 'loopback'],
  ['10.0.0.1', 'private'],
  ['172.16.0.1', 'private'],
  ['192.168.1.1', 'private'],
  ['169.254.169.254', 'cloudMetadata'],
  ['169.254.1.1', 'linkLocal'],
  ['100.64.0.1', 'carrierGradeNat'],
  ['0.0.0.0', 'unspecified'],
  ['255.255.255.255', 'broadcast'],
  ['224.0.0.1', 'multicast'],
  ['::1', 'loopback'],
  ['::', 'unspecified'],
  ['fe80::1', 'linkLocal'],
  ['fc00::1', 'uniqueLocal'],
  ['fd00:ec2::254', 'cloudMetadata'],
  ['::ffff:127.0.0.1', 'ipv4Mapped:loopback'],
  ['::ffff:10.0.0.1', 'ipv4Mapped:private'],
  ['64:ff9b::7f00:1', 'rfc6052'],
  ['2002:7f00:1::', '6to4'],
  ['2001::1', 'teredo'],
  ['192.0.2.1', 'reserved'],
  ['198.18.0.1', 'reserved'],
  ['100.100.100.200', 'cloudMetadata'],
  ['::7f00:1', 'ipv4Compatible'],
]

const ALLOWED = ['8.8.8.8', '93.184.216.34', '1.1.1.1', '2606:4700:4700::1111', '2a00:1450:4001:82b::200e']

describe('isPublicAddress', () => {
  for (const [ip, range] of REFUSED) {
    test(`refuses ${ip} (${range})`, () => {
      expect(isPublicAddress(ip)).toBe(false)
      expect(describeAddressRange(ip)).toBe(range)
    })
  }

  for (const ip of ALLOWED) {
    test(`allows ${ip}`, () => {
      expect(isPublicAddress(ip)).toBe(true)
      expect(describeAddressRange(ip)).toBe('unicast')
    })
  }

  test('refuses an IPv4-mapped IPv6 address even when the IPv4 address is public', () => {
    expect(isPublicAddress('::ffff:8.8.8.8')).toBe(false)
    expect(describeAddressRange('::ffff:8.8.8.8')).toBe('ipv4Mapped:unicast')
  })

  test('accepts the bracketed IPv6 host form of URLs', () => {
    expect(isPublicAddress('[2606:4700:4700::1111]')).toBe(true)
    expect(isPublicAddress('[::1]')).toBe(false)
  })

  test('refuses text that is not a canonical address, which another parser might read differently', () => {
    for (const text of ['0127.0.0.1', '2130706433', '0x7f.1', '1.2.3', 'localhost', '', '8.8.8.8.8']) {
      expect(isPublicAddress(text)).toBe(false)
      expect(describeAddressRange(text)).toBe('invalid')
    }
  })
})
