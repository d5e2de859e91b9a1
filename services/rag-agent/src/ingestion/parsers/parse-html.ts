import { load, type CheerioAPI } from 'cheerio';
import type { ParsedBody } from './parsed-body';
import { SectionBuilder, normalizeInline } from './section-builder';

/**
 * The parts of a DOM node the walker reads. Declared here because cheerio's node types live in
 * `domhandler`, which is cheerio's dependency, not ours.
 */
interface DomNode {
  type: string;
  name?: string;
  data?: string;
  children?: DomNode[];
}

/** Page furniture and non-content elements, removed before reading. */
const REMOVED = [
  'script',
  'style',
  'noscript',
  'template',
  'nav',
  'svg',
  'iframe',
  'object',
  'embed',
  'canvas',
  'button',
  'select',
  'input',
  'textarea',
  '[role="navigation"]',
  '[aria-hidden="true"]',
  '[hidden]',
].join(', ');

/** Elements whose content is block-level: they end the running paragraph and are read through. */
const CONTAINERS = new Set([
  'html',
  'body',
  'main',
  'article',
  'section',
  'div',
  'header',
  'footer',
  'aside',
  'blockquote',
  'figure',
  'figcaption',
  'details',
  'summary',
  'center',
  'form',
  'fieldset',
  'address',
  'dl',
  'dt',
  'dd',
  'li',
  'caption',
]);

const HEADING = /^h([1-6])$/;

function childrenOf(node: DomNode): DomNode[] {
  return node.children ?? [];
}

function isElement(node: DomNode, ...names: string[]): boolean {
  return (
    node.type === 'tag' &&
    node.name !== undefined &&
    (names.length === 0 || names.includes(node.name))
  );
}

/** Inline text: whitespace collapsed, `<br>` kept as a line break, block children spaced apart. */
function inlineText(node: DomNode): string {
  if (node.type === 'text') return (node.data ?? '').replace(/\s+/g, ' ');
  if (node.type !== 'tag' && node.type !== 'root') return '';
  if (isElement(node, 'br')) return '\n';
  const text = childrenOf(node).map(inlineText).join('');
  const name = node.name ?? '';
  return CONTAINERS.has(name) || HEADING.test(name) || name === 'p' || name === 'tr'
    ? ` ${text} `
    : text;
}

/** Raw text with whitespace as written, for `<pre>`. */
function rawText(node: DomNode): string {
  if (node.type === 'text') return node.data ?? '';
  if (isElement(node, 'br')) return '\n';
  return childrenOf(node).map(rawText).join('');
}

function listItems(list: DomNode): string[] {
  return childrenOf(list)
    .filter((child) => isElement(child, 'li'))
    .map((item) => {
      const parts: string[] = [];
      let inline = '';
      for (const child of childrenOf(item)) {
        if (isElement(child, 'ul', 'ol')) {
          parts.push(
            inline,
            ...listItems(child).map((nested) => `  - ${nested.replace(/\n/g, '\n    ')}`),
          );
          inline = '';
        } else {
          inline += inlineText(child);
        }
      }
      parts.push(inline);
      return parts
        .map((part) =>
          part
            .split('\n')
            .map((line) => (line.startsWith('  ') ? line.trimEnd() : normalizeInline(line)))
            .join('\n'),
        )
        .filter((part) => part.trim() !== '')
        .join('\n');
    });
}

/** The rows of a table, not of tables nested in its cells. */
function tableRows(table: DomNode): string[][] {
  const rows: string[][] = [];
  const visit = (node: DomNode): void => {
    for (const child of childrenOf(node)) {
      if (isElement(child, 'thead', 'tbody', 'tfoot')) visit(child);
      else if (isElement(child, 'tr')) {
        rows.push(
          childrenOf(child)
            .filter((cell) => isElement(cell, 'th', 'td'))
            .map((cell) => normalizeInline(inlineText(cell))),
        );
      }
    }
  };
  visit(table);
  return rows;
}

function walk(node: DomNode, builder: SectionBuilder): void {
  let inline = '';
  const flush = (): void => {
    builder.block({ kind: 'paragraph', text: inline });
    inline = '';
  };
  for (const child of childrenOf(node)) {
    const name = child.type === 'tag' ? (child.name ?? '') : '';
    const heading = HEADING.exec(name);
    if (heading?.[1] !== undefined) {
      flush();
      builder.heading({ text: inlineText(child), level: Number(heading[1]) });
    } else if (name === 'p') {
      flush();
      builder.block({ kind: 'paragraph', text: inlineText(child) });
    } else if (name === 'ul' || name === 'ol') {
      flush();
      builder.block({ kind: 'list', items: listItems(child) });
    } else if (name === 'table') {
      flush();
      const caption = childrenOf(child).find((part) => isElement(part, 'caption'));
      if (caption) builder.block({ kind: 'paragraph', text: inlineText(caption) });
      builder.block({ kind: 'table', rows: tableRows(child) });
    } else if (name === 'pre') {
      flush();
      builder.block({ kind: 'code', text: rawText(child) });
    } else if (name === 'hr') {
      flush();
    } else if (CONTAINERS.has(name)) {
      flush();
      walk(child, builder);
    } else {
      inline += inlineText(child);
    }
  }
  flush();
}

/** Options for {@link parseHtml}. */
export interface ParseHtmlOptions {
  /** A selector whose first match is the document's title, ahead of the first heading. @default 'title' */
  titleSelector?: string;
}

/** The element holding the content: `<main>`, a lone `<article>`, else `<body>` without its banner and footer. */
function contentRoot($: CheerioAPI): DomNode {
  const main = $('main').first();
  if (main.length > 0) return main.get(0) as unknown as DomNode;
  const articles = $('article');
  if (articles.length === 1) return articles.get(0) as unknown as DomNode;
  $('header, footer, [role="banner"], [role="contentinfo"]')
    .filter((_, element) => $(element).closest('article, main').length === 0)
    .remove();
  const body = $('body').first();
  return (body.length > 0 ? body.get(0) : $.root().get(0)) as unknown as DomNode;
}

/**
 * Parses HTML: `h1`–`h6` open sections; paragraphs, lists, tables and `pre` become blocks;
 * scripts, styles, navigation and hidden elements are dropped, and so are a page's own banner and
 * footer when there is no `<main>` or single `<article>` to read instead.
 *
 * @param html - The markup.
 * @param options - Where to find the title.
 */
export function parseHtml(
  html: string,
  { titleSelector = 'title' }: ParseHtmlOptions = {},
): ParsedBody {
  const $ = load(html);
  const titleElement = $(titleSelector).first();
  const declaredTitle = normalizeInline(titleElement.text());
  // The title heads every chunk; a title paragraph in the body (DOCX) would only repeat it.
  titleElement.remove();
  $(REMOVED).remove();
  const builder = new SectionBuilder();
  walk(contentRoot($), builder);
  const title = declaredTitle || builder.firstHeading;
  return { sections: builder.build(), ...(title ? { title } : {}) };
}
