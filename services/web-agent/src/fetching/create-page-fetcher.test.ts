import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startFakeWeb, type FakeWeb } from '../test-support/start-fake-web';
import { createPageFetcher, type ResolveHost } from './create-page-fetcher';
import { ForbiddenAddressError } from './forbidden-address-error';
import { createHostAllowlist } from './host-allowlist';

/** A resolver for made-up names, so tests control what a host "resolves" to. */
function resolverFor(table: Record<string, string[]>): ResolveHost & { calls: string[] } {
  const calls: string[] = [];
  const resolve = (host: string) => {
    calls.push(host);
    const addresses = table[host];
    if (addresses === undefined) return Promise.reject(new Error(`ENOTFOUND ${host}`));
    return Promise.resolve(
      addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
    );
  };
  return Object.assign(resolve, { calls });
}

describe('createPageFetcher', () => {
  let web: FakeWeb;
  let port: string;

  beforeAll(async () => {
    web = await startFakeWeb();
    port = new URL(web.url).port;
    web.pages.set('hello', { title: 'Hello', paragraphs: ['Hello from the fake web.'] });
    web.raw.set('redirect-to-page', (response) => {
      response.writeHead(302, { location: '/pages/hello' });
      response.end();
    });
    web.raw.set('redirect-to-loopback', (response) => {
      response.writeHead(301, { location: `http://127.0.0.1:${port}/pages/hello` });
      response.end();
    });
    web.raw.set('redirect-to-metadata', (response) => {
      response.writeHead(307, { location: 'http://169.254.169.254/latest/meta-data/' });
      response.end();
    });
    web.raw.set('redirect-to-file', (response) => {
      response.writeHead(302, { location: 'file:///etc/passwd' });
      response.end();
    });
    web.raw.set('loop', (response) => {
      response.writeHead(302, { location: '/raw/loop' });
      response.end();
    });
    web.raw.set('big-declared', (response) => {
      response.writeHead(200, { 'content-type': 'text/html', 'content-length': String(5000) });
      response.end('x'.repeat(5000));
    });
    web.raw.set('big-chunked', (response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      for (let index = 0; index < 10; index += 1) response.write('y'.repeat(500));
      response.end();
    });
    web.raw.set('gzip-bomb', (response) => {
      response.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
      response.end(gzipSync(Buffer.alloc(100_000, 'z')));
    });
    web.raw.set('gzip', (response) => {
      response.writeHead(200, {
        'content-type': 'text/plain; charset=utf-8',
        'content-encoding': 'gzip',
      });
      response.end(gzipSync(Buffer.from('compressed text, ünïcode', 'utf8')));
    });
    web.raw.set('latin1', (response) => {
      response.writeHead(200, { 'content-type': 'text/plain; charset=iso-8859-1' });
      response.end(Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    });
    web.raw.set('pdf', (response) => {
      response.writeHead(200, { 'content-type': 'application/pdf' });
      response.end('%PDF-1.7');
    });
    web.raw.set('missing', (response) => {
      response.writeHead(404, { 'content-type': 'text/html' });
      response.end('<h1>gone</h1>');
    });
    web.raw.set('hang', () => undefined);
    web.raw.set('bad-gzip', (response) => {
      response.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
      response.end('this is not gzip at all');
    });
    web.raw.set('odd-encoding', (response) => {
      response.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'x-odd' });
      response.end('xx');
    });
    web.raw.set('redirect-to-internal-name', (response) => {
      response.writeHead(302, { location: `http://internal.test:${port}/pages/hello` });
      response.end();
    });
  });

  afterAll(async () => {
    await web.close();
  });

  const fetcher = (options: Partial<Parameters<typeof createPageFetcher>[0]> = {}) =>
    createPageFetcher({
      allowlist: createHostAllowlist(['127.0.0.1']),
      maxBytes: 4096,
      timeoutMs: 3000,
      ...options,
    });

  describe('forbidden addresses', () => {
    const classes: [string, string][] = [
      ['private 10/8', '10.0.0.5'],
      ['private 172.16/12', '172.20.1.1'],
      ['private 192.168/16', '192.168.0.1'],
      ['carrier-grade NAT 100.64/10', '100.100.100.100'],
      ['loopback 127/8', '127.0.0.1'],
      ['link-local 169.254/16', '169.254.10.10'],
      ['cloud metadata 169.254.169.254', '169.254.169.254'],
      ['unspecified 0.0.0.0', '0.0.0.0'],
      ['IPv6 loopback ::1', '::1'],
      ['IPv6 unspecified ::', '::'],
      ['IPv6 link-local fe80::/10', 'fe80::abcd'],
      ['IPv6 unique-local fc00::/7', 'fd00::1'],
      ['IPv4-mapped loopback', '::ffff:127.0.0.1'],
      ['IPv4-mapped metadata', '::ffff:169.254.169.254'],
      ['IPv4-mapped private', '::ffff:10.0.0.1'],
    ];

    it.each(classes)(
      'refuses a host that resolves to %s (%s), after DNS',
      async (_label, address) => {
        const resolveHost = resolverFor({ 'victim.test': [address] });
        const fetchPage = fetcher({ allowlist: createHostAllowlist([]), resolveHost });
        const refusal = fetchPage('http://victim.test/secret');
        await expect(refusal).rejects.toBeInstanceOf(ForbiddenAddressError);
        await expect(refusal).rejects.toThrow(/victim\.test resolves to .*WEB_FETCH_ALLOWLIST/);
        expect(resolveHost.calls).toContain('victim.test');
      },
    );

    it.each([
      ['http://127.0.0.1:1/', 'loopback'],
      ['http://[::1]:1/', 'loopback'],
      ['http://169.254.169.254/latest/meta-data/', 'metadata'],
      ['http://10.0.0.1/', 'private'],
      ['http://[::ffff:127.0.0.1]/', 'loopback'],
      ['http://[fe80::1]/', 'link-local'],
      ['http://0.0.0.0/', 'unspecified'],
    ])('refuses the IP literal in %s (%s) without resolving it', async (url, addressClass) => {
      const resolveHost = resolverFor({});
      const fetchPage = fetcher({ allowlist: createHostAllowlist([]), resolveHost });
      const error = await fetchPage(url).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ForbiddenAddressError);
      expect((error as ForbiddenAddressError).addressClass).toBe(addressClass);
      expect(resolveHost.calls).toEqual([]);
    });

    it('refuses a host when any of its addresses is forbidden', async () => {
      const resolveHost = resolverFor({ 'mixed.test': ['93.184.215.14', '10.0.0.1'] });
      await expect(
        fetcher({ allowlist: createHostAllowlist([]), resolveHost })('http://mixed.test/'),
      ).rejects.toThrow(/mixed\.test resolves to 10\.0\.0\.1, a private network address/);
    });

    it('refuses a loopback server that is not allowlisted, and never connects to it', async () => {
      const before = web.requests.length;
      await expect(
        fetcher({ allowlist: createHostAllowlist(['example.com']) })(web.pageUrl('hello')),
      ).rejects.toBeInstanceOf(ForbiddenAddressError);
      expect(web.requests.length).toBe(before);
    });

    it('connects to the checked address (pinned), not to what DNS would answer later', async () => {
      // pages.test exists only in this resolver: the request reaches the fake web only because the
      // connection uses the address the guard resolved and checked.
      const resolveHost = resolverFor({ 'pages.test': ['127.0.0.1'] });
      const page = await fetcher({ allowlist: createHostAllowlist(['pages.test']), resolveHost })(
        `http://pages.test:${port}/pages/hello`,
      );
      expect(page.body).toContain('Hello from the fake web.');
      expect(page.address).toBe('127.0.0.1');
      expect(web.requests.at(-1)?.headers.host).toBe(`pages.test:${port}`);
      expect(resolveHost.calls).toEqual(['pages.test']);
    });

    it('re-checks every redirect hop: an allowlisted host cannot redirect to a forbidden one', async () => {
      const resolveHost = resolverFor({ 'pages.test': ['127.0.0.1'] });
      const fetchPage = fetcher({ allowlist: createHostAllowlist(['pages.test']), resolveHost });
      await expect(fetchPage(`http://pages.test:${port}/raw/redirect-to-loopback`)).rejects.toThrow(
        /Refused to fetch http:\/\/127\.0\.0\.1:\d+\/pages\/hello: 127\.0\.0\.1 a loopback address/,
      );
      await expect(fetchPage(`http://pages.test:${port}/raw/redirect-to-metadata`)).rejects.toThrow(
        /169\.254\.169\.254 the cloud metadata address/,
      );
    });

    it('re-checks every redirect hop by name too: the target host is resolved and refused', async () => {
      const resolveHost = resolverFor({
        'pages.test': ['127.0.0.1'],
        'internal.test': ['10.0.0.7'],
      });
      const fetchPage = fetcher({ allowlist: createHostAllowlist(['pages.test']), resolveHost });
      const before = web.requests.length;
      await expect(
        fetchPage(`http://pages.test:${port}/raw/redirect-to-internal-name`),
      ).rejects.toThrow(
        /Refused to fetch http:\/\/internal\.test:\d+\/pages\/hello: internal\.test resolves to 10\.0\.0\.7, a private network address/,
      );
      expect(resolveHost.calls).toEqual(['pages.test', 'internal.test']);
      expect(web.requests.length).toBe(before + 1);
    });

    it('refuses a redirect to a scheme other than http(s)', async () => {
      await expect(fetcher()(`${web.url}/raw/redirect-to-file`)).rejects.toThrow(
        /redirects to a URL the web agent does not fetch: .*only http and https/,
      );
    });
  });

  describe('URLs and limits', () => {
    it('fetches an allowlisted page and follows a same-host redirect', async () => {
      const page = await fetcher()(`${web.url}/raw/redirect-to-page`);
      expect(page).toMatchObject({
        status: 200,
        mediaType: 'text/html',
        finalUrl: web.pageUrl('hello'),
        redirects: [web.pageUrl('hello')],
      });
      expect(page.body).toContain('<p>Hello from the fake web.</p>');
    });

    it.each(['file:///etc/passwd', 'ftp://example.com/x', 'gopher://example.com', 'not a url'])(
      'refuses %s',
      async (url) => {
        await expect(fetcher()(url)).rejects.toThrow(/only http and https|not a valid URL/);
      },
    );

    it('refuses URLs with credentials', async () => {
      await expect(fetcher()(`http://user:pw@127.0.0.1:${port}/pages/hello`)).rejects.toThrow(
        /credentials/,
      );
    });

    it('stops after the redirect limit', async () => {
      await expect(fetcher({ maxRedirects: 3 })(`${web.url}/raw/loop`)).rejects.toThrow(
        /redirects more than 3 times \(WEB_FETCH_MAX_REDIRECTS\)/,
      );
    });

    it('follows no redirect when the limit is 0', async () => {
      await expect(fetcher({ maxRedirects: 0 })(`${web.url}/raw/redirect-to-page`)).rejects.toThrow(
        /redirects more than 0 times \(WEB_FETCH_MAX_REDIRECTS\)/,
      );
    });

    it('refuses bodies over the size limit, declared or streamed, and decompression bombs', async () => {
      await expect(fetcher()(`${web.url}/raw/big-declared`)).rejects.toThrow(
        /larger than the 4096 bytes/,
      );
      await expect(fetcher()(`${web.url}/raw/big-chunked`)).rejects.toThrow(
        /larger than the 4096 bytes/,
      );
      await expect(fetcher()(`${web.url}/raw/gzip-bomb`)).rejects.toThrow(
        /larger than the 4096 bytes/,
      );
    });

    it('times out', async () => {
      await expect(fetcher({ timeoutMs: 300 })(`${web.url}/raw/hang`)).rejects.toThrow(
        /did not answer within 300 ms \(WEB_FETCH_TIMEOUT_MS\)/,
      );
    });

    it('stops when the caller aborts', async () => {
      const controller = new AbortController();
      const pending = fetcher()(`${web.url}/raw/hang`, { signal: controller.signal });
      setTimeout(() => controller.abort(), 50);
      await expect(pending).rejects.toThrow(/was cancelled/);
    });

    it('decodes gzip and the declared charset', async () => {
      expect((await fetcher()(`${web.url}/raw/gzip`)).body).toBe('compressed text, ünïcode');
      expect((await fetcher()(`${web.url}/raw/latin1`)).body).toBe('café');
    });

    it('reports a body that does not decompress and a content encoding it does not read', async () => {
      await expect(fetcher()(`${web.url}/raw/bad-gzip`)).rejects.toThrow(
        /raw\/bad-gzip sent a body that does not decompress \(gzip\)/,
      );
      await expect(fetcher()(`${web.url}/raw/odd-encoding`)).rejects.toThrow(
        /uses the content encoding x-odd, which the web agent does not read/,
      );
    });

    it('refuses media types other than HTML and text, and reports HTTP errors', async () => {
      await expect(fetcher()(`${web.url}/raw/pdf`)).rejects.toThrow(
        /is application\/pdf; the web agent reads HTML and plain text/,
      );
      await expect(fetcher()(`${web.url}/raw/missing`)).rejects.toThrow(/answered HTTP 404/);
    });

    it('reports a host that does not resolve', async () => {
      await expect(
        fetcher({ resolveHost: resolverFor({}) })('http://nowhere.test/'),
      ).rejects.toThrow(/Could not resolve nowhere\.test/);
    });
  });
});
