import { describe, expect, it } from '@jest/globals';
import { decodeEntities, htmlToText } from './html-to-text';

describe('htmlToText', () => {
  it('keeps the article as paragraphs and drops scripts, navigation, header and footer', () => {
    const page = htmlToText(`<html><head><title>A &amp; B</title>
      <meta content="About A and B" name="description"><style>p{}</style></head>
      <body><header>Site header</header><nav>Menu</nav>
      <article><h1>A and B</h1><p>First  paragraph.</p><p>Second<br>line &#8211; done&nbsp;now.</p></article>
      <aside>Ad</aside><footer>Footer</footer><script>alert(1)</script></body></html>`);
    expect(page.title).toBe('A & B');
    expect(page.description).toBe('About A and B');
    expect(page.text).toBe('A and B\n\nFirst paragraph.\n\nSecond\n\nline – done now.');
  });

  it('uses main, then body, when there is no article', () => {
    expect(
      htmlToText('<body><nav>x</nav><main><p>Main text.</p></main><p>outside</p></body>').text,
    ).toBe('Main text.');
    expect(htmlToText('<body><div>Body text.</div><!-- hidden --></body>').text).toBe('Body text.');
  });

  it('reads the published time from meta tags', () => {
    expect(
      htmlToText('<meta property="article:published_time" content="2026-11-20T08:00:00Z"><p>x</p>')
        .publishedTime,
    ).toBe('2026-11-20T08:00:00Z');
  });
});

describe('decodeEntities', () => {
  it('decodes numeric and common named references and leaves unknown ones', () => {
    expect(decodeEntities('&lt;a&gt; &#x27;q&#39; &hellip; &unknown; &#0;')).toBe(
      "<a> 'q' … &unknown; &#0;",
    );
  });
});
