import { createRequire } from 'node:module';
import { Readability } from '@mozilla/readability';
import { htmlNestsDeeperThan } from '@fleet/worker-pool';
import { PageLimitError } from './page-limit-error';

/** The part of the DOM the extraction uses (linkedom's types need the DOM lib, which is not loaded). */
interface DomElement {
  textContent: string | null;
  innerHTML: string;
  querySelector(selectors: string): DomElement | null;
  querySelectorAll(selectors: string): Iterable<DomElement>;
  getAttribute(name: string): string | null;
  remove(): void;
}

interface DomDocument {
  body: DomElement | null;
  querySelector(selectors: string): DomElement | null;
  querySelectorAll(selectors: string): Iterable<DomElement>;
}

type ParseHtml = (html: string) => { document: DomDocument };

let domParser: ParseHtml | undefined;

/**
 * linkedom, loaded on first use (its types need the DOM lib, which is not loaded; the first load
 * is slow under jest, which transforms its ESM-only dependencies). Its CommonJS build requires
 * css-select 7 and siblings, which are ESM-only: Node (>= 20.19, the fleet's engine) loads them
 * through require(esm), and jest.config.js transforms them.
 */
function loadDomParser(): ParseHtml {
  domParser ??= (createRequire(__filename)('linkedom') as { parseHTML: ParseHtml }).parseHTML;
  return domParser;
}

/**
 * Loads linkedom now rather than on the first extraction (tests warm it up outside their time
 * limits). True: extraction always uses Readability over linkedom; it throws when linkedom cannot
 * be loaded.
 */
export function usesReadability(): boolean {
  loadDomParser();
  return true;
}

/** A page's readable content. */
export interface ReadableText {
  title: string;
  /** The main text, whitespace collapsed, paragraphs separated by blank lines. */
  text: string;
  /** The page's own summary (meta description or Readability's excerpt), when it has one. */
  excerpt: string | undefined;
  /** When the page says it was published, if it does. */
  publishedTime: string | undefined;
}

/** Options for {@link extractReadableText}. */
export interface ExtractReadableTextOptions {
  /** The page body. */
  body: string;
  /** Its media type: HTML is parsed, anything else is taken as plain text. */
  mediaType: string;
  /** Where it came from (the fallback title). */
  url: string;
  /** Longest text kept, in characters. @default 20000 */
  maxChars?: number;
  /**
   * How deep the page may nest its elements (estimated before any DOM is built; elements whose
   * end tag is optional, like `li` and `td`, do not count). @default 150
   */
  maxNestingDepth?: number;
  /**
   * Elements Readability scores at most; a larger page is read as its body's text (without
   * Readability's choice of the article). @default 20000
   */
  maxElements?: number;
}

const BLOCK_TAGS = 'p, li, h1, h2, h3, h4, h5, h6, pre, blockquote, td, th, dt, dd, figcaption';

function collapse(text: string): string {
  return text.replace(/[ \t\f\v\u00a0]+/g, ' ').trim();
}

const HEAD_ELEMENTS = /<title[^>]*>[\s\S]*?<\/title>|<(?:meta|link|base)\b[^>]*>/gi;

/**
 * The page as linkedom needs it. linkedom does not infer `<head>` and `<body>` the way browsers do,
 * so a valid HTML5 page without them (`<!doctype html><title>T</title><p>Hi</p>`) would have an
 * empty body: such a page is rebuilt with its title, meta and link elements in a head and the rest
 * in a body.
 */
function asDocument(body: string): string {
  if (/<body[\s>]/i.test(body)) return body;
  const head = body.match(HEAD_ELEMENTS) ?? [];
  const rest = body
    .replace(HEAD_ELEMENTS, '')
    .replace(/<!doctype[^>]*>|<\/?(?:html|head)\b[^>]*>/gi, '');
  return `<!doctype html><html><head>${head.join('')}</head><body>${rest}</body></html>`;
}

/** Paragraph text of an HTML fragment: one block element per paragraph. */
function paragraphsOf(parseHTML: ParseHtml, html: string): string {
  const { document } = parseHTML(`<!doctype html><html><body>${html}</body></html>`);
  const blocks = [...document.querySelectorAll(BLOCK_TAGS)]
    // Nested blocks (a <p> in an <li>) would repeat their text.
    .filter((element) => element.querySelector(BLOCK_TAGS) === null)
    .map((element) => collapse(element.textContent ?? ''))
    .filter((text) => text !== '');
  return blocks.length > 0 ? blocks.join('\n\n') : collapse(document.body?.textContent ?? '');
}

function meta(document: DomDocument, selectors: readonly string[]): string | undefined {
  for (const selector of selectors) {
    const content = document.querySelector(selector)?.getAttribute('content')?.trim();
    if (content) return content;
  }
  return undefined;
}

/** Readability's article, or null when it finds none or the page has more than `maxElements` elements. */
function readArticle(document: DomDocument, maxElements: number) {
  try {
    return new Readability(document, { charThreshold: 100, maxElemsToParse: maxElements }).parse();
  } catch {
    // "Aborting parsing document; N elements found": the body text is read instead.
    return null;
  }
}

function truncate(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const cut = text.lastIndexOf(' ', maxChars);
  return `${text.slice(0, cut > maxChars * 0.8 ? cut : maxChars)}…`;
}

/**
 * The readable text of a fetched page: Mozilla Readability over a linkedom DOM for HTML (the
 * article, without navigation, ads and scripts), the whole body's text when Readability finds no
 * article (or the page has more than `maxElements` elements), and plain text as it is. Character
 * references are decoded by linkedom's parser. A page nested deeper than `maxNestingDepth` is
 * refused before it is parsed (Readability's time grows with the cube of the depth).
 *
 * CPU-heavy on large or odd pages: the service runs it on the page-reading pool's worker threads
 * (`createPageReader`), under a time and memory budget.
 *
 * @throws {@link PageLimitError} for a page nested too deep.
 * @example
 * const { title, text } = extractReadableText({ body: html, mediaType: 'text/html', url });
 */
export function extractReadableText({
  body,
  mediaType,
  url,
  maxChars = 20_000,
  maxNestingDepth = 150,
  maxElements = 20_000,
}: ExtractReadableTextOptions): ReadableText {
  if (mediaType !== 'text/html' && mediaType !== 'application/xhtml+xml') {
    const text = body
      .replace(/\r\n?/g, '\n')
      .replace(/\n{3,}/g, '\n\n')
      .trim();
    return {
      title: url,
      text: truncate(text, maxChars),
      excerpt: undefined,
      publishedTime: undefined,
    };
  }
  if (htmlNestsDeeperThan(body, maxNestingDepth)) {
    throw new PageLimitError({
      url,
      limit: 'maxNestingDepth',
      max: maxNestingDepth,
      reason: `its elements nest more than ${maxNestingDepth} deep, more than a page is written`,
    });
  }
  const parseHTML = loadDomParser();
  const { document } = parseHTML(asDocument(body));
  const pageTitle = collapse(document.querySelector('title')?.textContent ?? '');
  const description = meta(document, [
    'meta[name="description"]',
    'meta[property="og:description"]',
  ]);
  const published = meta(document, [
    'meta[property="article:published_time"]',
    'meta[name="date"]',
  ]);
  // Readability changes the document it reads; the fallback below reads a fresh one. The DOM lib
  // is not loaded (a Node service), so Readability's `Document` parameter type is opaque.
  const article = readArticle(document, maxElements);
  const articleText = article?.content ? paragraphsOf(parseHTML, article.content) : '';
  let text = articleText;
  if (text.length < 200) {
    const fresh = parseHTML(asDocument(body)).document;
    for (const element of fresh.querySelectorAll(
      'script, style, noscript, template, nav, header, footer',
    )) {
      element.remove();
    }
    const whole = paragraphsOf(parseHTML, fresh.body?.innerHTML ?? '');
    if (whole.length > text.length) text = whole;
  }
  return {
    title: collapse(article?.title ?? '') || pageTitle || url,
    text: truncate(text, maxChars),
    excerpt: description ?? (collapse(article?.excerpt ?? '') || undefined),
    publishedTime: published ?? article?.publishedTime ?? undefined,
  };
}
