/**
 * A light browser-side check of an IP whitelist entry: IPv4, IPv6, optionally with a CIDR prefix (10.0.0.0/8).
 * The server is the authority (it normalises with ipaddr.js and answers 'invalid_ip'); this only spares a round trip.
 */

const DIGITS = '0123456789';
const HEX = '0123456789abcdefABCDEF';

function allOf(text: string, alphabet: string): boolean {
  for (const ch of text) if (!alphabet.includes(ch)) return false;
  return true;
}

export function isIPv4(text: string): boolean {
  const parts = text.split('.');
  if (parts.length !== 4) return false;
  return parts.every((part) => {
    if (part.length === 0 || part.length > 3 || !allOf(part, DIGITS)) return false;
    if (part.length > 1 && part.startsWith('0')) return false;
    return Number(part) <= 255;
  });
}

export function isIPv6(text: string): boolean {
  if (!text.includes(':')) return false;
  let head = text;
  let embeddedV4Groups = 0;
  const lastColon = text.lastIndexOf(':');
  const tail = text.slice(lastColon + 1);
  if (tail.includes('.')) {
    if (!isIPv4(tail)) return false;
    head = `${text.slice(0, lastColon + 1)}0`;
    embeddedV4Groups = 1; // an IPv4 tail takes two groups: the '0' placeholder counts one
  }
  const doubleColons = head.split('::').length - 1;
  if (doubleColons > 1) return false;
  const groupsOf = (segment: string) => (segment === '' ? [] : segment.split(':'));
  const validGroup = (group: string) => group.length >= 1 && group.length <= 4 && allOf(group, HEX);
  if (doubleColons === 1) {
    const [left = '', right = ''] = head.split('::');
    const groups = [...groupsOf(left), ...groupsOf(right)];
    return groups.every(validGroup) && groups.length + embeddedV4Groups <= 7;
  }
  const groups = head.split(':');
  return groups.every(validGroup) && groups.length + embeddedV4Groups === 8;
}

export function isIpOrCidr(input: string): boolean {
  const text = input.trim();
  if (text === '') return false;
  const slash = text.indexOf('/');
  const address = slash === -1 ? text : text.slice(0, slash);
  const prefix = slash === -1 ? null : text.slice(slash + 1);
  const v4 = isIPv4(address);
  const v6 = !v4 && isIPv6(address);
  if (!v4 && !v6) return false;
  if (prefix === null) return true;
  if (prefix.length === 0 || prefix.length > 3 || !allOf(prefix, DIGITS)) return false;
  return Number(prefix) <= (v4 ? 32 : 128);
}
