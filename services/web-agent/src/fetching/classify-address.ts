import { isIP } from 'node:net';

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

interface Ipv4Range {
  base: number;
  bits: number;
  kind: ForbiddenAddressClass;
}

function ipv4ToNumber(text: string): number | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  let value = 0;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part)) return undefined;
    const octet = Number(part);
    if (octet > 255) return undefined;
    value = value * 256 + octet;
  }
  return value;
}

function range(cidr: string, kind: ForbiddenAddressClass): Ipv4Range {
  const [address = '', bits = '32'] = cidr.split('/');
  return { base: ipv4ToNumber(address) ?? 0, bits: Number(bits), kind };
}

// Most specific first: 169.254.169.254 is reported as metadata, not just link-local.
const IPV4_RANGES: readonly Ipv4Range[] = [
  range('169.254.169.254/32', 'metadata'),
  range('0.0.0.0/8', 'unspecified'),
  range('10.0.0.0/8', 'private'),
  range('100.64.0.0/10', 'carrier-grade-nat'),
  range('127.0.0.0/8', 'loopback'),
  range('169.254.0.0/16', 'link-local'),
  range('172.16.0.0/12', 'private'),
  range('192.0.0.0/24', 'reserved'),
  range('192.168.0.0/16', 'private'),
  range('198.18.0.0/15', 'reserved'),
  range('224.0.0.0/4', 'multicast'),
  range('240.0.0.0/4', 'reserved'),
];

function inRange(value: number, { base, bits }: Ipv4Range): boolean {
  const size = 2 ** (32 - bits);
  return Math.floor(value / size) === Math.floor(base / size);
}

function classifyIpv4(value: number): ForbiddenAddressClass | undefined {
  return IPV4_RANGES.find((entry) => inRange(value, entry))?.kind;
}

/** The 16 bytes of an IPv6 address (zone id dropped, an embedded dotted quad allowed). */
function ipv6Bytes(text: string): number[] | undefined {
  let address = text.split('%')[0] ?? '';
  const lastColon = address.lastIndexOf(':');
  const tail = address.slice(lastColon + 1);
  if (tail.includes('.')) {
    // `::ffff:1.2.3.4` → `::ffff:102:304`
    const value = ipv4ToNumber(tail);
    if (value === undefined) return undefined;
    const high = Math.floor(value / 65536).toString(16);
    const low = (value % 65536).toString(16);
    address = `${address.slice(0, lastColon + 1)}${high}:${low}`;
  }
  const halves = address.split('::');
  if (halves.length > 2) return undefined;
  const groups = (part: string | undefined): string[] =>
    part === undefined || part === '' ? [] : part.split(':');
  const left = groups(halves[0]);
  const right = groups(halves[1]);
  const missing = 8 - left.length - right.length;
  if (halves.length === 1 ? missing !== 0 : missing < 0) return undefined;
  const all = [...left, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...right];
  const bytes: number[] = [];
  for (const group of all) {
    if (!/^[0-9a-f]{1,4}$/i.test(group)) return undefined;
    const value = parseInt(group, 16);
    bytes.push(value >>> 8, value & 255);
  }
  return bytes.length === 16 ? bytes : undefined;
}

function embeddedIpv4(bytes: readonly number[]): number {
  return (
    (bytes[12] ?? 0) * 2 ** 24 +
    (bytes[13] ?? 0) * 2 ** 16 +
    (bytes[14] ?? 0) * 256 +
    (bytes[15] ?? 0)
  );
}

function startsWith(bytes: readonly number[], prefix: readonly number[]): boolean {
  return prefix.every((byte, index) => bytes[index] === byte);
}

function classifyIpv6(bytes: readonly number[]): ForbiddenAddressClass | undefined {
  const zeros = (count: number): number[] => Array<number>(count).fill(0);
  if (bytes.every((byte) => byte === 0)) return 'unspecified';
  if (startsWith(bytes, zeros(15)) && bytes[15] === 1) return 'loopback';
  // IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d) and NAT64 (64:ff9b::a.b.c.d) forms
  // reach the IPv4 address inside them: judge that one.
  if (startsWith(bytes, [...zeros(10), 0xff, 0xff]) || startsWith(bytes, zeros(12))) {
    return classifyIpv4(embeddedIpv4(bytes));
  }
  if (startsWith(bytes, [0x00, 0x64, 0xff, 0x9b, ...zeros(8)])) {
    return classifyIpv4(embeddedIpv4(bytes));
  }
  const first = bytes[0] ?? 0;
  const second = bytes[1] ?? 0;
  if (first === 0xfe && (second & 0xc0) === 0x80) return 'link-local';
  if ((first & 0xfe) === 0xfc) return 'unique-local';
  if (first === 0xff) return 'multicast';
  // fec0::/10, the deprecated site-local range, is private in practice.
  if (first === 0xfe && (second & 0xc0) === 0xc0) return 'private';
  return undefined;
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
  const version = isIP(address.split('%')[0] ?? '');
  if (version === 4) {
    const value = ipv4ToNumber(address);
    return value === undefined ? 'reserved' : classifyIpv4(value);
  }
  if (version === 6) {
    const bytes = ipv6Bytes(address);
    return bytes === undefined ? 'reserved' : classifyIpv6(bytes);
  }
  return 'reserved';
}
