import { isIP } from 'node:net';
import { IPv4, IPv6, parseCIDR } from 'ipaddr.js';

/** Why an address may not be fetched. */
export type ForbiddenAddressClass =
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'carrier-grade-nat'
  | 'link-local'
  | 'metadata'
  | 'unique-local'
  | 'multicast'
  | 'reserved';

/** Words for each class, for error messages. */
export const FORBIDDEN_ADDRESS_LABELS: Readonly<Record<ForbiddenAddressClass, string>> = {
  unspecified: 'an unspecified address',
  loopback: 'a loopback address',
  private: 'a private network address',
  'carrier-grade-nat': 'a carrier-grade NAT (shared) address',
  'link-local': 'a link-local address',
  metadata: 'the cloud metadata address',
  'unique-local': 'a unique-local IPv6 address',
  multicast: 'a multicast address',
  reserved: 'a reserved address',
};

interface AddressRange {
  range: [IPv4 | IPv6, number];
  addressClass: ForbiddenAddressClass;
}

function ranges(table: readonly (readonly [string, ForbiddenAddressClass])[]): AddressRange[] {
  return table.map(([cidr, addressClass]) => ({ range: parseCIDR(cidr), addressClass }));
}

function classOf(address: IPv4 | IPv6, table: readonly AddressRange[]) {
  return table.find(({ range }) => address.match(range))?.addressClass;
}

// Most specific first: 169.254.169.254 is reported as metadata, not just link-local.
const IPV4_RANGES = ranges([
  ['169.254.169.254/32', 'metadata'],
  ['0.0.0.0/8', 'unspecified'],
  ['10.0.0.0/8', 'private'],
  ['100.64.0.0/10', 'carrier-grade-nat'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local'],
  ['172.16.0.0/12', 'private'],
  ['192.0.0.0/24', 'reserved'],
  ['192.168.0.0/16', 'private'],
  ['198.18.0.0/15', 'reserved'],
  ['224.0.0.0/4', 'multicast'],
  ['240.0.0.0/4', 'reserved'],
]);

// Judged first: both also lie in ::/96, the IPv4-compatible range below.
const IPV6_OWN_ADDRESSES = ranges([
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
]);

// IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d) and NAT64 (64:ff9b::a.b.c.d) forms
// reach the IPv4 address in their last 32 bits: that one is judged.
const IPV6_EMBEDDING_IPV4 = ['::ffff:0:0/96', '::/96', '64:ff9b::/96'].map((cidr) =>
  parseCIDR(cidr),
);

const IPV6_RANGES = ranges([
  ['fe80::/10', 'link-local'],
  ['fc00::/7', 'unique-local'],
  ['ff00::/8', 'multicast'],
  // fec0::/10, the deprecated site-local range, is private in practice.
  ['fec0::/10', 'private'],
]);

function classifyIpv6(address: IPv6): ForbiddenAddressClass | undefined {
  const own = classOf(address, IPV6_OWN_ADDRESSES);
  if (own !== undefined) return own;
  if (IPV6_EMBEDDING_IPV4.some((range) => address.match(range))) {
    return classOf(new IPv4(address.toByteArray().slice(12)), IPV4_RANGES);
  }
  return classOf(address, IPV6_RANGES);
}

/**
 * The class of address an IP literal belongs to when the web agent must not fetch from it
 * (private, loopback, link-local, cloud metadata, unique-local, unspecified, CGNAT, multicast,
 * reserved; IPv4-mapped and NAT64 IPv6 forms judged by their IPv4 address), or `undefined` for a
 * public address. Text that is not an IP address is `reserved`: never connect to what cannot be
 * judged.
 *
 * @example
 * classifyAddress('169.254.169.254'); // 'metadata'
 * classifyAddress('::ffff:10.0.0.1'); // 'private'
 * classifyAddress('93.184.215.14'); // undefined
 */
export function classifyAddress(address: string): ForbiddenAddressClass | undefined {
  // node:net's isIP decides what is an address (ipaddr.js also parses forms like `0x7f.1`); a zone
  // id is allowed on IPv6 only.
  const version = isIP(address.split('%')[0] ?? '');
  try {
    if (version === 4) return classOf(IPv4.parse(address), IPV4_RANGES);
    if (version === 6) return classifyIpv6(IPv6.parse(address.split('%')[0] ?? ''));
  } catch {
    return 'reserved';
  }
  return 'reserved';
}
