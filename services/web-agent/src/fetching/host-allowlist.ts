/** Decides whether a host may be fetched even though it is on a forbidden address. */
export type HostAllowlist = (host: string) => boolean;

function normalizeHost(host: string): string {
  return host
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
}

/**
 * Builds the WEB_FETCH_ALLOWLIST check: exact host names or IP literals (case-insensitive, IPv6 with
 * or without brackets), and `*.example.internal` for the subdomains of a domain (not the domain
 * itself). An empty list allows nothing.
 *
 * @example
 * const allowed = createHostAllowlist(['127.0.0.1', '*.corp.internal']);
 * allowed('wiki.corp.internal'); // true
 * allowed('localhost'); // false
 */
export function createHostAllowlist(entries: readonly string[]): HostAllowlist {
  const exact = new Set<string>();
  const suffixes: string[] = [];
  for (const entry of entries.map(normalizeHost)) {
    if (entry === '') continue;
    if (entry.startsWith('*.')) suffixes.push(entry.slice(1));
    else exact.add(entry);
  }
  return function isAllowedHost(host: string): boolean {
    const name = normalizeHost(host);
    return exact.has(name) || suffixes.some((suffix) => name.endsWith(suffix));
  };
}
