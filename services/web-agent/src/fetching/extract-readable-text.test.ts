import { describe, expect, it } from '@jest/globals';
import { extractReadableText, usesReadability } from './extract-readable-text';

const ARTICLE = `<!doctype html><html><head><title>Node.js 22 released | Tech News</title>
<meta name="description" content="Node.js 22 ships with require(esm).">
<meta property="article:published_time" content="2024-04-24T10:00:00Z"></head>
<body><nav><a href="/">Home</a><a href="/subscribe">Subscribe now</a></nav>
<aside class="sidebar">Advertisement: buy our course</aside>
<main><article><h1>Node.js 22 released</h1>
<p>Node.js 22 was released on 24 April 2024 and will become the active LTS line in October.</p>
<p>The release enables require() of synchronous ES modules behind a flag and updates V8 to 12.4.</p>
<ul><li>WebSocket client enabled by default.</li><li>Stable watch mode.</li></ul>
</article></main><footer>© Tech News</footer><script>window.track()</script></body></html>`;

// jest.config.js transforms linkedom's ESM-only dependencies, so these tests run the production
// path (Readability over linkedom), the only one.
it('loads linkedom, so extraction uses Readability as in production', () => {
  expect(usesReadability()).toBe(true);
});

describe('extractReadableText (Readability)', () => {
  it('keeps the article text, title, description and date, without navigation or scripts', () => {
    const readable = extractReadableText({
      body: ARTICLE,
      mediaType: 'text/html',
      url: 'https://news.test/node-22',
    });
    expect(readable.title).toContain('Node.js 22 released');
    expect(readable.text).toContain('Node.js 22 was released on 24 April 2024');
    expect(readable.text).toContain('WebSocket client enabled by default.');
    expect(readable.text).not.toContain('window.track');
    expect(readable.text).not.toContain('Subscribe now');
    expect(readable.excerpt).toBe('Node.js 22 ships with require(esm).');
    expect(readable.publishedTime).toBe('2024-04-24T10:00:00Z');
    expect(readable.text.split('\n\n').length).toBeGreaterThanOrEqual(3);
  });

  it('decodes character references in the title, description and text', () => {
    const readable = extractReadableText({
      body: `<html><head><title>A &amp; B</title>
        <meta content="About A &amp; B &hellip;" name="description"></head>
        <body><nav>Menu</nav><article><h1>A and B</h1><p>First  paragraph.</p>
        <p>Second line &#8211; done&nbsp;now &lt;x&gt; &#x27;q&#39;.</p></article></body></html>`,
      mediaType: 'text/html',
      url: 'https://entities.test/',
    });
    expect(readable.title).toBe('A & B');
    expect(readable.excerpt).toBe('About A & B …');
    expect(readable.text).toBe("A and B\n\nFirst paragraph.\n\nSecond line – done now <x> 'q'.");
  });

  it('reads a valid HTML5 page that has no <html> element', () => {
    const readable = extractReadableText({
      body: '<!doctype html><title>Short page</title><p>Hello from a page without an html element.</p>',
      mediaType: 'text/html',
      url: 'https://short.test/',
    });
    expect(readable.title).toBe('Short page');
    expect(readable.text).toContain('Hello from a page without an html element.');
  });

  it('falls back to the body text for pages without an article', () => {
    const readable = extractReadableText({
      body: '<html><head><title>Tiny</title></head><body><div>Just one short line.</div><script>x()</script></body></html>',
      mediaType: 'text/html',
      url: 'https://tiny.test/',
    });
    expect(readable.title).toBe('Tiny');
    expect(readable.text).toBe('Just one short line.');
  });

  it('takes plain text as it is, titled by its URL, and truncates long text', () => {
    const readable = extractReadableText({
      body: 'line one\r\n\r\n\r\nline two',
      mediaType: 'text/plain',
      url: 'https://plain.test/a.txt',
    });
    expect(readable).toMatchObject({
      title: 'https://plain.test/a.txt',
      text: 'line one\n\nline two',
    });
    const long = extractReadableText({
      body: 'word '.repeat(100),
      mediaType: 'text/plain',
      url: 'u',
      maxChars: 50,
    });
    expect(long.text.length).toBeLessThanOrEqual(51);
    expect(long.text.endsWith('…')).toBe(true);
  });
});
