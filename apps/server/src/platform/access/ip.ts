import ipaddr from 'ipaddr.js';

/** An address as we store and compare it: IPv4-mapped IPv6 addresses become plain IPv4. */
export function normaliseAddress(address: string): string {
  try {
    const parsed = ipaddr.parse(address.trim());
    if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
      return (parsed as ipaddr.IPv6).toIPv4Address().toString();
    }
    return parsed.toString();
  } catch {
    return address;
  }
}

/**
 * Parses a whitelist entry: an IPv4 or IPv6 address, or a CIDR range. Returns its canonical form
 * ('10.0.0.0/8', '2001:db8::/32', '192.168.1.5') or null when it is not one. A CIDR with host bits set is
 * refused rather than silently widened, since '10.1.2.3/8' usually means a typo.
 */
export function parseWhitelistEntry(input: string): string | null {
  const value = input.trim();
  // A zone index ('fe80::1%eth0') names an interface of one machine; such an entry would never match a caller.
  if (value.includes('%')) return null;
  if (value.includes('/')) {
    if (!ipaddr.isValidCIDR(value)) return null;
    const [addr, prefix] = ipaddr.parseCIDR(value);
    const network =
      addr.kind() === 'ipv4' ? ipaddr.IPv4.networkAddressFromCIDR(value) : ipaddr.IPv6.networkAddressFromCIDR(value);
    if (network.toString() !== addr.toString()) return null;
    // Callers are compared as IPv4 when they come IPv4-mapped, so a mapped range is stored as the IPv4 range it means.
    if (network.kind() === 'ipv6' && (network as ipaddr.IPv6).isIPv4MappedAddress() && prefix >= 96) {
      return `${(network as ipaddr.IPv6).toIPv4Address().toString()}/${prefix - 96}`;
    }
    return `${network.toString()}/${prefix}`;
  }
  if (ipaddr.IPv4.isValidFourPartDecimal(value)) return ipaddr.IPv4.parse(value).toString();
  if (!value.includes(':') || !ipaddr.IPv6.isValid(value)) return null;
  return normaliseAddress(value);
}

/** Whether an address is covered by an entry (a single address or a CIDR range) of the same family. */
export function entryCovers(entry: string, address: string): boolean {
  let addr: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    addr = ipaddr.parse(normaliseAddress(address));
  } catch {
    return false;
  }
  if (entry.includes('/')) {
    const [net, prefix] = ipaddr.parseCIDR(entry);
    if (net.kind() !== addr.kind()) return false;
    return addr.match([net, prefix] as [typeof addr, number]);
  }
  try {
    const single = ipaddr.parse(entry);
    return single.kind() === addr.kind() && single.toString() === addr.toString();
  } catch {
    return false;
  }
}

export function anyCovers(entries: readonly string[], address: string): boolean {
  return entries.some((e) => entryCovers(e, address));
}
