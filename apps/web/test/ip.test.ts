import { describe, expect, it } from 'vitest';
import { isIpOrCidr, isIPv4, isIPv6 } from '../src/lib/ip';

describe('IP whitelist entry check', () => {
  it.each(['192.168.0.1', '0.0.0.0', '255.255.255.255', '10.0.0.0/8', '1.2.3.4/32', ' 8.8.8.8 '])(
    'accepts IPv4 %s',
    (ip) => expect(isIpOrCidr(ip)).toBe(true),
  );

  it.each([
    '::1',
    '::',
    '2001:db8::1',
    '2001:db8::/32',
    'fe80::1:2:3:4',
    '1:2:3:4:5:6:7:8',
    '::ffff:192.168.0.1',
    '1:2:3:4:5:6:7::',
  ])('accepts IPv6 %s', (ip) => expect(isIpOrCidr(ip)).toBe(true));

  it.each([
    '',
    'abc',
    '256.1.1.1',
    '1.2.3',
    '1.2.3.4.5',
    '01.2.3.4',
    '1.2.3.4/33',
    '1.2.3.4/',
    '1.2.3.4/x',
    '2001:db8::1::2',
    '1:2:3:4:5:6:7:8:9',
    '1:2:3:4:5:6:7:8::',
    '12345::1',
    'g::1',
    '::1/129',
    ':::',
    '1.2.3.-4',
  ])('refuses %j', (ip) => expect(isIpOrCidr(ip)).toBe(false));

  it('tells the families apart', () => {
    expect(isIPv4('1.2.3.4')).toBe(true);
    expect(isIPv6('1.2.3.4')).toBe(false);
    expect(isIPv6('::1')).toBe(true);
    expect(isIPv4('::1')).toBe(false);
  });
});
