import { decodeHTMLStrict } from 'entities';
import type { Token, Tokens } from 'marked';
import { stripTags } from './html-text';
import type { ParsedBody } from './parsed-body';
import { SectionBuilder } from './section-builder';

const FRONT_MATTER = /^---\r?\n([\s\S]*?)\r?\n(?:---|\.\.\.)\r?\n/;

/** Plain text of inline tokens: emphasis, links and code spans keep their text, tags go. */
function inlineText(tokens: readonly Token[] | undefined): string {
  return (tokens ?? [])
    .map((token): string => {
      switch (token.type) {
        case 'br':
          return '\n';
        case 'html':
        case 'checkbox':
          return '';
        case 'image':
          return (token as Tokens.Image).text;
        case 'codespan':
        case 'escape':
          return (token as Tokens.Codespan).text;
        default:
          if ('tokens' in token && Array.isArray(token.tokens)) return inlineText(token.tokens);
          return 'text' in token && typeof token.text === 'string'
            ? decodeHTMLStrict(token.text)
            : '';
      }
    })
    .join('');
}

/** An item's text; nested lists follow on their own lines, indented. */
function listItemText(item: Tokens.ListItem): string {
  const parts = item.tokens.map((token) => {
    if (token.type === 'list') {
      return (token as Tokens.List).items
        .map((child) => `  - ${listItemText(child).replace(/\n/g, '\n    ')}`)
        .join('\n');
    }
    if (token.type === 'code') return (token as Tokens.Code).text;
    return inlineText('tokens' in token ? token.tokens : undefined);
  });
  const text = parts.filter((part) => part.trim() !== '').join('\n');
  return item.task ? `[${item.checked === true ? 'x' : ' '}] ${text}` : text;
}

function walk(tokens: readonly Token[], builder: SectionBuilder): void {
  for (const token of tokens) {
    switch (token.type) {
      case 'heading': {
        const heading = token as Tokens.Heading;
        builder.heading({ text: inlineText(heading.tokens), level: heading.depth });
        break;
      }
      case 'paragraph':
      case 'text':
        builder.block({ kind: 'paragraph', text: inlineText((token as Tokens.Paragraph).tokens) });
        break;
      case 'list':
        builder.block({ kind: 'list', items: (token as Tokens.List).items.map(listItemText) });
        break;
      case 'code':
        builder.block({ kind: 'code', text: (token as Tokens.Code).text });
        break;
      case 'table': {
        const table = token as Tokens.Table;
        const rows = [table.header, ...table.rows].map((row) =>
          row.map((cell) => inlineText(cell.tokens)),
        );
        builder.block({ kind: 'table', rows });
        break;
      }
      case 'blockquote':
        walk((token as Tokens.Blockquote).tokens, builder);
        break;
      case 'html':
        builder.block({ kind: 'paragraph', text: stripTags((token as Tokens.HTML).text) });
        break;
      default:
        // space, hr, link definitions: no content.
        break;
    }
  }
}

/**
 * Inline text (a paragraph, a heading, a table cell) longer than this is kept as plain text,
 * without inline parsing: marked's emphasis scan is quadratic in the length of such a run
 * (`a_b_a_b_…`: 64 KiB took 7 s, 128 KiB 21 s). Real paragraphs are far shorter; one this long
 * keeps all its text, only its emphasis and link marks are not read.
 */
export const MAX_INLINE_CHARS = 5000;

/** The part of marked's Lexer that {@link lexBounded} drives (its public API). */
interface BlockLexer {
  blockTokens(src: string, tokens?: Token[]): Token[];
  inlineTokens(src: string, tokens?: Token[]): Token[];
  inlineQueue: { src: string; tokens: Token[] }[];
  state: { inRawBlock: boolean };
  tokens: Token[];
}

/**
 * What `Lexer.lex` does (block tokens, then the queued inline runs), except that an inline run
 * longer than {@link MAX_INLINE_CHARS} becomes one text token instead of being lexed.
 */
function lexBounded(lexer: BlockLexer, markdown: string): Token[] {
  lexer.blockTokens(markdown.replace(/\r\n|\r/g, '\n'), lexer.tokens);
  for (const { src, tokens } of lexer.inlineQueue) {
    lexer.state.inRawBlock = false;
    if (src.length > MAX_INLINE_CHARS) tokens.push({ type: 'text', raw: src, text: src });
    else lexer.inlineTokens(src, tokens);
  }
  lexer.inlineQueue = [];
  return lexer.tokens;
}

/**
 * Parses Markdown (GitHub flavour) with marked's lexer: `#` and underlined headings open sections;
 * paragraphs, lists (nested items folded into their parent), fenced code and tables become
 * blocks; block quotes are read through; raw HTML keeps only its text. YAML front matter is
 * dropped, except that its `title:` becomes the title. An inline run longer than
 * {@link MAX_INLINE_CHARS} is kept as plain text.
 *
 * @param text - The decoded file.
 */
export async function parseMarkdown(text: string): Promise<ParsedBody> {
  // marked ships only as an ES module: loaded on first use, so that importing this package
  // does not need it (jest's CommonJS runtime can load it only when transformed).
  const { Lexer } = await import('marked');
  const frontMatter = FRONT_MATTER.exec(text);
  const body = frontMatter ? text.slice(frontMatter[0].length) : text;
  const declaredTitle = /^title:\s*(.+?)\s*$/m
    .exec(frontMatter?.[1] ?? '')?.[1]
    ?.replace(/^(['"])(.*)\1$/, '$2');
  const builder = new SectionBuilder();
  walk(lexBounded(new Lexer({ gfm: true }), body), builder);
  const title = declaredTitle ?? builder.firstHeading;
  return { sections: builder.build(), ...(title ? { title } : {}) };
}
