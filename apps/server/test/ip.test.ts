import { describe, expect, it } from 'vitest';
import { anyCovers, entryCovers, normaliseAddress, parseWhitelistEntry } from '../src/platform/access/ip.js';

describe('parseWhitelistEntry', () => {
  it.each([
    ['10.1.2.3', '10.1.2.3'],
    [' 192.168.0.1 ', '192.168.0.1'],
    ['10.0.0.0/8', '10.0.0.0/8'],
    ['192.168.1.0/24', '192.168.1.0/24'],
    ['0.0.0.0/0', '0.0.0.0/0'],
    ['10.1.2.3/32', '10.1.2.3/32'],
    ['2001:db8::1', '2001:db8::1'],
    ['2001:0db8::1', '2001:db8::1'],
    ['2001:0DB8:0000:0000:0000:0000:0000:0001', '2001:db8::1'],
    ['2001:db8::/32', '2001:db8::/32'],
    ['2001:0db8:0000::/48', '2001:db8::/48'],
    ['::1', '::1'],
    ['::ffff:10.1.2.3', '10.1.2.3'],
    ['::ffff:10.0.0.0/104', '10.0.0.0/8'],
    ['::ffff:192.168.1.0/120', '192.168.1.0/24'],
  ])('accepts %j as %j', (input, canonical) => {
    expect(parseWhitelistEntry(input)).toBe(canonical);
  });

  it.each([
    ['999.1.1.1'],
    ['1.2.3'],
    ['1.2.3.4.5'],
    ['10.1.2.3/8'],
    ['2001:db8::1/32'],
    ['abc'],
    [''],
    ['1.2.3.4/33'],
    ['2001:db8::/129'],
    ['10.0.0.0/'],
    ['/8'],
    ['10.0.0.0/8/8'],
    ['0x0a.1.2.3'],
    ['010.1.2.3'],
    ['12345'],
    ['2001:db8:::1'],
    ['fe80::1%eth0'],
    ['10.0.0.0/8%eth0'],
  ])('refuses %j', (input) => {
    expect(parseWhitelistEntry(input)).toBeNull();
  });
});

describe('normaliseAddress', () => {
  it('turns IPv4-mapped IPv6 into IPv4 and compresses IPv6', () => {
    expect(normaliseAddress('::ffff:10.1.2.3')).toBe('10.1.2.3');
    expect(normaliseAddress('2001:0db8:0:0::1')).toBe('2001:db8::1');
    expect(normaliseAddress('127.0.0.1')).toBe('127.0.0.1');
  });
});

describe('entryCovers / anyCovers', () => {
  it('matches an IPv4 address inside an IPv4 range and only there', () => {
    expect(entryCovers('10.0.0.0/8', '10.1.2.3')).toBe(true);
    expect(entryCovers('10.0.0.0/8', '10.255.255.255')).toBe(true);
    expect(entryCovers('10.0.0.0/8', '11.0.0.0')).toBe(false);
    expect(entryCovers('192.168.1.0/24', '192.168.2.1')).toBe(false);
    expect(entryCovers('0.0.0.0/0', '203.0.113.9')).toBe(true);
  });

  it('matches a single address exactly', () => {
    expect(entryCovers('10.1.2.3', '10.1.2.3')).toBe(true);
    expect(entryCovers('10.1.2.3', '10.1.2.4')).toBe(false);
    expect(entryCovers('2001:db8::1', '2001:0db8:0000::0001')).toBe(true);
    expect(entryCovers('2001:db8::1', '2001:db8::2')).toBe(false);
  });

  it('matches an IPv6 address inside an IPv6 range', () => {
    expect(entryCovers('2001:db8::/32', '2001:db8:abcd::42')).toBe(true);
    expect(entryCovers('2001:db8::/32', '2001:db9::1')).toBe(false);
  });

  it('treats an IPv4-mapped IPv6 caller as its IPv4 address', () => {
    expect(entryCovers('10.0.0.0/8', '::ffff:10.1.2.3')).toBe(true);
    expect(entryCovers('10.1.2.3', '::ffff:10.1.2.3')).toBe(true);
    expect(entryCovers('10.0.0.0/8', '::ffff:11.1.2.3')).toBe(false);
  });

  it('lets an IPv4-mapped range, once parsed, cover the IPv4 callers it names', () => {
    const entry = parseWhitelistEntry('::ffff:10.0.0.0/104')!;
    expect(entryCovers(entry, '10.1.2.3')).toBe(true);
    expect(entryCovers(entry, '::ffff:10.1.2.3')).toBe(true);
    expect(entryCovers(entry, '11.1.2.3')).toBe(false);
  });

  it('never lets one family cover the other', () => {
    expect(entryCovers('0.0.0.0/0', '2001:db8::1')).toBe(false);
    expect(entryCovers('::/0', '10.1.2.3')).toBe(false);
    expect(entryCovers('::/0', '::ffff:10.1.2.3')).toBe(false);
    expect(entryCovers('2001:db8::/32', '32.1.13.184')).toBe(false);
  });

  it('covers nothing with a garbage caller address', () => {
    expect(entryCovers('0.0.0.0/0', 'not-an-ip')).toBe(false);
    expect(entryCovers('10.1.2.3', '')).toBe(false);
  });

  it('anyCovers is true when one entry matches and false on an empty list', () => {
    expect(anyCovers(['192.168.0.0/16', '2001:db8::/32', '10.0.0.0/8'], '10.9.9.9')).toBe(true);
    expect(anyCovers(['192.168.0.0/16', '2001:db8::/32'], '10.9.9.9')).toBe(false);
    expect(anyCovers(['192.168.0.0/16', '2001:db8::/32'], '2001:db8::5')).toBe(true);
    expect(anyCovers([], '10.9.9.9')).toBe(false);
  });
});
