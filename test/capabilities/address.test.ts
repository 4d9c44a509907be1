import { describe, expect, test } from 'bun:test'
import { classifyAddress, formatIPv6, isBlockedAddress, parseIPv4, parseIPv6 } from '../../src/capabilities/address.ts'

describe('parseIPv4 accepts every inet_aton form', () => {
  test.each([
    ['127.0.0.1', 0x7f000001],
    ['2130706433', 0x7f000001],
    ['0x7f000001', 0x7f000001],
    ['0x7f.1', 0x7f000001],
    ['0177.0.0.01', 0x7f000001],
    ['127.1', 0x7f000001],
    ['127.0.1', 0x7f000001],
    ['017700000001', 0x7f000001],
    ['0x7F.0X0.0.1', 0x7f000001],
    ['255.255.255.255', 0xffffffff],
    ['1.2.3.4.', 0x01020304],
  ])('%s', (text, value) => {
    expect(parseIPv4(text)).toBe(value)
  })

  test.each(['256.0.0.1', '1.2.3.4.5', '08.0.0.1', 'example.com', '', '1..2', '4294967296', '0x1.0x100.0.0', '1.2.3.256'])(
    '%s is not IPv4',
    (text) => {
      expect(parseIPv4(text)).toBeNull()
    },
  )
})

describe('parseIPv6', () => {
  test.each([
    ['::1', 1n],
    ['::', 0n],
    ['[::1]', 1n],
    ['fe80::1%eth0', 0xfe800000000000000000000000000001n],
    ['::ffff:127.0.0.1', 0xffff7f000001n],
    ['1:2:3:4:5:6:7:8', 0x00010002000300040005000600070008n],
  ])('%s', (text, value) => {
    expect(parseIPv6(text)).toBe(value)
  })

  test.each(['1:2:3:4:5:6:7:8:9', '1::2::3', ':::', '12345::', 'g::1', '1.2.3.4', '::1.2.3'])('%s is not IPv6', (text) => {
    expect(parseIPv6(text)).toBeNull()
  })

  test('formatIPv6 compresses the longest zero run', () => {
    expect(formatIPv6(parseIPv6('2001:db8:0:0:1:0:0:1')!)).toBe('2001:db8::1:0:0:1')
    expect(formatIPv6(parseIPv6('0:0:0:0:0:0:0:0')!)).toBe('::')
    expect(formatIPv6(parseIPv6('1:0:2:0:3:0:4:0')!)).toBe('1:0:2:0:3:0:4:0')
  })
})

describe('classifyAddress', () => {
  test.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.0.1', 'private'],
    ['100.64.0.1', 'cgnat'],
    ['100.127.255.255', 'cgnat'],
    ['169.254.1.1', 'link-local'],
    ['169.254.169.254', 'metadata'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'broadcast'],
    ['192.0.2.1', 'documentation'],
    ['198.18.0.1', 'reserved'],
    ['0x7f.1', 'loopback'],
    ['2852039166', 'metadata'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:169.254.169.254', 'metadata'],
    ['::ffff:10.0.0.1', 'private'],
    ['::127.0.0.1', 'reserved'],
    ['64:ff9b::10.0.0.1', 'private'],
    ['2002:7f00:1::', 'loopback'],
    ['2002:a9fe:a9fe::1', 'metadata'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456::1', 'unique-local'],
    ['fd00:ec2::254', 'metadata'],
    ['fe80::1', 'link-local'],
    ['febf::1', 'link-local'],
    ['fec0::1', 'private'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'documentation'],
    ['2001:0:4136:e378::1', 'reserved'],
    ['100::1', 'reserved'],
    ['4000::1', 'reserved'],
  ])('%s is %s', (text, kind) => {
    const info = classifyAddress(text)
    expect(info?.kind).toBe(kind as never)
    expect(info?.blocked).toBe(true)
  })

  test.each(['8.8.8.8', '1.1.1.1', '93.184.216.34', '172.32.0.1', '100.128.0.1', '169.253.255.255', '2606:4700:4700::1111', '2a00:1450::1', '::ffff:8.8.8.8', '64:ff9b::8.8.8.8', '2002:808:808::1'])(
    '%s is public',
    (text) => {
      expect(classifyAddress(text)).toMatchObject({ kind: 'public', blocked: false })
      expect(isBlockedAddress(text)).toBe(false)
    },
  )

  test('names are not addresses, and isBlockedAddress fails closed on them', () => {
    expect(classifyAddress('example.com')).toBeNull()
    expect(isBlockedAddress('example.com')).toBe(true)
  })

  test('canonical text and family are reported', () => {
    expect(classifyAddress('0177.0.0.1')).toEqual({ family: 4, kind: 'loopback', blocked: true, address: '127.0.0.1' })
    expect(classifyAddress('[0:0:0:0:0:0:0:1]')).toEqual({ family: 6, kind: 'loopback', blocked: true, address: '::1' })
  })
})
