/** The readable parts of an HTML page, read without a DOM. */
export interface HtmlText {
  title: string;
  /** Paragraphs separated by blank lines. */
  text: string;
  description: string | undefined;
  publishedTime: string | undefined;
}

const NAMED_ENTITIES: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  ndash: '–',
  mdash: '—',
  hellip: '…',
  copy: '©',
  reg: '®',
  rsquo: '’',
  lsquo: '‘',
  rdquo: '”',
  ldquo: '“',
};

/** Decodes numeric and the common named character references. */
export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (entity, name: string) => {
    if (name.startsWith('#')) {
      const code =
        name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : Number(name.slice(1));
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff
        ? String.fromCodePoint(code)
        : entity;
    }
    return NAMED_ENTITIES[name.toLowerCase()] ?? entity;
  });
}

// Elements whose content is never the page's text.
const DROPPED =
  /<(script|style|noscript|template|svg|iframe|nav|header|footer|aside|form|button|select)\b[\s\S]*?<\/\1\s*>/gi;
const BLOCK =
  /<\/?(p|div|section|article|main|li|ul|ol|h[1-6]|pre|blockquote|table|tr|td|th|dt|dd|figcaption|br|hr)\b[^>]*>/gi;

function collapse(text: string): string {
  return text.replace(/[ \t\f\v\u00a0]+/g, ' ').trim();
}

function metaContent(html: string, attribute: string, value: string): string | undefined {
  for (const tag of html.match(/<meta\b[^>]*>/gi) ?? []) {
    const named = new RegExp(`${attribute}\\s*=\\s*["']${value}["']`, 'i').test(tag);
    const content = /content\s*=\s*(["'])([\s\S]*?)\1/i.exec(tag)?.[2];
    if (named && content !== undefined && content.trim() !== '')
      return decodeEntities(content.trim());
  }
  return undefined;
}

/**
 * Readable text of an HTML page without a DOM: scripts, styles, navigation, headers, footers,
 * asides and forms dropped, the `<article>` (else `<main>`, else `<body>`) kept, block elements as
 * paragraphs, character references decoded. The fallback of `extractReadableText` when the DOM
 * library cannot be loaded.
 *
 * @example
 * htmlToText('<title>T</title><nav>menu</nav><article><p>Hello.</p></article>').text; // 'Hello.'
 */
export function htmlToText(html: string): HtmlText {
  const withoutComments = html.replace(/<!--[\s\S]*?-->/g, '');
  const title = collapse(
    decodeEntities(/<title\b[^>]*>([\s\S]*?)<\/title>/i.exec(withoutComments)?.[1] ?? ''),
  );
  const cleaned = withoutComments.replace(/<head\b[\s\S]*?<\/head>/i, '').replace(DROPPED, ' ');
  const region =
    /<article\b[^>]*>([\s\S]*?)<\/article>/i.exec(cleaned)?.[1] ??
    /<main\b[^>]*>([\s\S]*?)<\/main>/i.exec(cleaned)?.[1] ??
    /<body\b[^>]*>([\s\S]*?)(?:<\/body>|$)/i.exec(cleaned)?.[1] ??
    cleaned;
  const text = decodeEntities(region.replace(BLOCK, '\n\n').replace(/<[^>]+>/g, ''))
    .split(/\n\s*\n/)
    .map(collapse)
    .filter((paragraph) => paragraph !== '')
    .join('\n\n');
  return {
    title,
    text,
    description:
      metaContent(withoutComments, 'name', 'description') ??
      metaContent(withoutComments, 'property', 'og:description'),
    publishedTime:
      metaContent(withoutComments, 'property', 'article:published_time') ??
      metaContent(withoutComments, 'name', 'date'),
  };
}
