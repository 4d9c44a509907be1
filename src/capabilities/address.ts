/**
 * Pure IP address classification for SSRF protection.
 *
 * The fetch capability resolves every host name and refuses the request when
 * any resolved address is not a public unicast address. This module is the
 * whole decision: parse a literal (IPv4 in every form `inet_aton` accepts,
 * IPv6 with embedded IPv4 and zone ids), then look it up in two range tables.
 *
 * IPv4 uses a deny table (everything not listed is public). IPv6 is stricter:
 * only global unicast (2000::/3) can be public, and the IPv6 forms that embed
 * an IPv4 address (mapped, NAT64, 6to4) are judged by the embedded address,
 * so `::ffff:127.0.0.1` and `2002:7f00:1::` are loopback like `127.0.0.1`.
 */

/** What an address is; everything but `public` is refused by default. */
export type AddressKind =
  | 'public' | 'private' | 'loopback' | 'link-local' | 'unique-local' | 'cgnat' | 'multicast'
  | 'unspecified' | 'metadata' | 'reserved' | 'documentation' | 'broadcast'

/** The classification of one IP literal. */
export interface AddressInfo {
  family: 4 | 6
  kind: AddressKind
  /** True when the fetch capability refuses it by default (`kind !== 'public'`). */
  blocked: boolean
  /** Canonical text form (dotted quad for IPv4, lowercase hex groups for IPv6). */
  address: string
}

// --- IPv4 --------------------------------------------------------------------

const HEX = /^0x[0-9a-f]*$/i
const OCT = /^0[0-7]*$/
const DEC = /^[1-9][0-9]*$/

/** One `inet_aton` part: decimal, octal (leading 0) or hex (0x). */
function parseV4Part(part: string): number | null {
  if (part.length === 0 || part.length > 12) return null
  if (HEX.test(part)) return part.length === 2 ? 0 : parseInt(part.slice(2), 16)
  if (OCT.test(part)) return parseInt(part, 8)
  if (DEC.test(part)) return parseInt(part, 10)
  return null
}

/**
 * Parse an IPv4 literal the way `inet_aton` and the WHATWG URL parser do:
 * 1 to 4 parts, each decimal, octal or hex, the last part filling the
 * remaining bytes (`2130706433`, `0x7f.1`, `0177.0.0.01` are all 127.0.0.1).
 * Returns the address as an unsigned 32-bit number, or null.
 */
export function parseIPv4(text: string): number | null {
  const s = text.endsWith('.') ? text.slice(0, -1) : text
  const parts = s.split('.')
  if (parts.length < 1 || parts.length > 4) return null
  const nums: number[] = []
  for (const p of parts) {
    const n = parseV4Part(p)
    if (n === null) return null
    nums.push(n)
  }
  let value = 0
  for (let i = 0; i < nums.length - 1; i++) {
    if (nums[i]! > 255) return null
    value = value * 256 + nums[i]!
  }
  const lastBytes = 5 - nums.length
  const last = nums[nums.length - 1]!
  if (last >= 256 ** lastBytes) return null
  return value * 256 ** lastBytes + last
}

/** Dotted-quad text of a 32-bit IPv4 number. */
export function formatIPv4(n: number): string {
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.')
}

// --- IPv6 --------------------------------------------------------------------

const GROUP = /^[0-9a-f]{1,4}$/i
const DOTTED = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/

/** Parse groups of one side of `::`; an IPv4 tail counts as two groups. */
function parseGroups(side: string, allowV4Tail: boolean): number[] | null {
  if (side === '') return []
  const parts = side.split(':')
  const out: number[] = []
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i]!
    if (allowV4Tail && i === parts.length - 1 && DOTTED.test(p)) {
      const v4 = parseIPv4(p)!
      out.push(v4 >>> 16, v4 & 0xffff)
    } else if (GROUP.test(p)) {
      out.push(parseInt(p, 16))
    } else {
      return null
    }
  }
  return out
}

/**
 * Parse an IPv6 literal (optionally in brackets, optionally with a `%zone`),
 * including `::` compression and a dotted IPv4 tail. Returns a 128-bit bigint
 * or null.
 */
export function parseIPv6(text: string): bigint | null {
  let s = text
  if (s.startsWith('[') && s.endsWith(']')) s = s.slice(1, -1)
  const zone = s.indexOf('%')
  if (zone !== -1) s = s.slice(0, zone)
  if (!s.includes(':') || s.length > 45) return null
  const halves = s.split('::')
  if (halves.length > 2) return null
  let groups: number[]
  if (halves.length === 2) {
    const head = parseGroups(halves[0]!, false)
    const tail = parseGroups(halves[1]!, true)
    if (!head || !tail || head.length + tail.length > 7) return null
    groups = [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail]
  } else {
    const all = parseGroups(s, true)
    if (!all || all.length !== 8) return null
    groups = all
  }
  let value = 0n
  for (const g of groups) value = (value << 16n) | BigInt(g)
  return value
}

/** Canonical lowercase IPv6 text (RFC 5952 `::` compression of the longest zero run). */
export function formatIPv6(value: bigint): string {
  const groups: number[] = []
  for (let i = 7; i >= 0; i--) groups.push(Number((value >> BigInt(i * 16)) & 0xffffn))
  let bestStart = -1
  let bestLen = 1
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) { i++; continue }
    let j = i
    while (j < 8 && groups[j] === 0) j++
    if (j - i > bestLen) { bestStart = i; bestLen = j - i }
    i = j
  }
  const hex = groups.map((g) => g.toString(16))
  if (bestStart === -1) return hex.join(':')
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLen).join(':')}`
}

// --- range tables --------------------------------------------------------------

interface V4Range { base: number; bits: number; kind: AddressKind }
interface V6Range { base: bigint; bits: number; kind: AddressKind | 'embedded-v4' | 'embedded-6to4' }

function v4(cidr: string, kind: AddressKind): V4Range {
  const [ip, bits] = cidr.split('/')
  return { base: parseIPv4(ip!)!, bits: Number(bits), kind }
}

function v6(cidr: string, kind: V6Range['kind']): V6Range {
  const [ip, bits] = cidr.split('/')
  return { base: parseIPv6(ip!)!, bits: Number(bits), kind }
}

// The range tables are parsed on first use, not at import: an import of the
// package should not pay for parsing 30 CIDRs it may never need.

/** IPv4 ranges that are not public; first match wins, so specific entries come first. */
const v4Ranges = (): readonly V4Range[] => Object.freeze([
  v4('169.254.169.254/32', 'metadata'),
  v4('255.255.255.255/32', 'broadcast'),
  v4('0.0.0.0/8', 'unspecified'),
  v4('10.0.0.0/8', 'private'),
  v4('100.64.0.0/10', 'cgnat'),
  v4('127.0.0.0/8', 'loopback'),
  v4('169.254.0.0/16', 'link-local'),
  v4('172.16.0.0/12', 'private'),
  v4('192.0.0.0/24', 'reserved'),
  v4('192.0.2.0/24', 'documentation'),
  v4('192.88.99.0/24', 'reserved'),
  v4('192.168.0.0/16', 'private'),
  v4('198.18.0.0/15', 'reserved'),
  v4('198.51.100.0/24', 'documentation'),
  v4('203.0.113.0/24', 'documentation'),
  v4('224.0.0.0/4', 'multicast'),
  v4('240.0.0.0/4', 'reserved'),
])

/** IPv6 ranges; anything outside 2000::/3 that is not listed here is reserved. */
const v6Ranges = (): readonly V6Range[] => Object.freeze([
  v6('::/128', 'unspecified'),
  v6('::1/128', 'loopback'),
  v6('::ffff:0:0/96', 'embedded-v4'),
  v6('64:ff9b::/96', 'embedded-v4'),
  v6('64:ff9b:1::/48', 'private'),
  v6('::/96', 'reserved'),
  v6('100::/64', 'reserved'),
  v6('2001:db8::/32', 'documentation'),
  v6('2001::/23', 'reserved'),
  v6('2002::/16', 'embedded-6to4'),
  v6('fd00:ec2::254/128', 'metadata'),
  v6('fc00::/7', 'unique-local'),
  v6('fe80::/10', 'link-local'),
  v6('fec0::/10', 'private'),
  v6('ff00::/8', 'multicast'),
])

let tables: { v4: readonly V4Range[]; v6: readonly V6Range[]; globalUnicast: V6Range } | undefined
const ranges = () => (tables ??= { v4: v4Ranges(), v6: v6Ranges(), globalUnicast: v6('2000::/3', 'reserved') })

function inV4(n: number, r: V4Range): boolean {
  if (r.bits === 0) return true
  const shift = 32 - r.bits
  return Math.floor(n / 2 ** shift) === Math.floor(r.base / 2 ** shift)
}

function inV6(n: bigint, r: { base: bigint; bits: number }): boolean {
  const shift = BigInt(128 - r.bits)
  return n >> shift === r.base >> shift
}

function classifyV4(n: number): AddressKind {
  for (const r of ranges().v4) if (inV4(n, r)) return r.kind
  return 'public'
}

function classifyV6(n: bigint): AddressKind {
  for (const r of ranges().v6) {
    if (!inV6(n, r)) continue
    if (r.kind === 'embedded-v4') return classifyV4(Number(n & 0xffffffffn))
    if (r.kind === 'embedded-6to4') return classifyV4(Number((n >> 80n) & 0xffffffffn))
    return r.kind
  }
  return inV6(n, ranges().globalUnicast) ? 'public' : 'reserved'
}

function info(family: 4 | 6, kind: AddressKind, address: string): AddressInfo {
  return { family, kind, blocked: kind !== 'public', address }
}

/**
 * Classify an IP literal (any IPv4 form `parseIPv4` accepts, or IPv6 with or
 * without brackets). Returns null when `text` is not an IP literal (a host name).
 */
export function classifyAddress(text: string): AddressInfo | null {
  const n4 = parseIPv4(text)
  if (n4 !== null) return info(4, classifyV4(n4), formatIPv4(n4))
  const n6 = parseIPv6(text)
  if (n6 !== null) return info(6, classifyV6(n6), formatIPv6(n6))
  return null
}

/**
 * True unless `text` is a public unicast IP address. Fails closed: a string
 * that is not an IP literal at all counts as blocked.
 */
export function isBlockedAddress(text: string): boolean {
  return classifyAddress(text)?.blocked ?? true
}
