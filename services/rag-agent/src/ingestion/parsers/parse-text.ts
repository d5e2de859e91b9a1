import type { Block } from '../types';
import { SectionBuilder } from './section-builder';
import type { ParsedBody } from './parsed-body';

const UNDERLINE = /^\s*(=+|-+)\s*$/;
const RULE = /^\s*[-=_*~#.·•]{3,}\s*$/u;
const NUMBERED_HEADING = /^(\d+(?:\.\d+)*)\.?\s+(\p{Lu}.*)$/u;
const BULLET = /^\s*(?:[-*+•‣◦▪]|\d+[.)])\s+/u;

/** A heading candidate: its text and a style key (the first style seen is the top level). */
interface HeadingGuess {
  text: string;
  style: string;
}

function isHeadingLike(text: string): boolean {
  const words = text.split(/\s+/).length;
  return text.length <= 80 && words <= 10 && !/[.,;:!?]$/.test(text) && /\p{L}/u.test(text);
}

/** A single line set off by blank lines, in capitals or numbered like `2.1 Scope`. */
function guessLineHeading(line: string): HeadingGuess | undefined {
  const text = line.trim();
  if (!isHeadingLike(text)) return undefined;
  const numbered = NUMBERED_HEADING.exec(text);
  if (numbered?.[1] !== undefined) {
    return { text, style: `numbered-${numbered[1].split('.').length}` };
  }
  const letters = text.match(/\p{L}/gu) ?? [];
  if (letters.length >= 3 && !/\p{Ll}/u.test(text)) return { text, style: 'capitals' };
  return undefined;
}

function lineHeading(lines: readonly string[] | undefined): HeadingGuess | undefined {
  const [line] = lines ?? [];
  return lines?.length === 1 && line !== undefined ? guessLineHeading(line) : undefined;
}

/** Splits body lines into paragraphs, lists (bullets or `1.`/`1)` items) and indented code. */
function bodyBlocks(lines: readonly string[]): Block[] {
  if (lines.length > 0 && lines.every((line) => /^(?: {4}|\t)/.test(line) || line.trim() === '')) {
    return [
      { kind: 'code', text: lines.map((line) => line.replace(/^(?: {4}|\t)/, '')).join('\n') },
    ];
  }
  const blocks: Block[] = [];
  let paragraph: string[] = [];
  let items: string[] | undefined;
  const flushParagraph = (): void => {
    if (paragraph.length > 0) blocks.push({ kind: 'paragraph', text: paragraph.join(' ') });
    paragraph = [];
  };
  const flushList = (): void => {
    if (items) blocks.push({ kind: 'list', items });
    items = undefined;
  };
  for (const line of lines) {
    if (BULLET.test(line)) {
      flushParagraph();
      items ??= [];
      items.push(line.replace(BULLET, '').trim());
    } else if (items && /^\s+\S/.test(line)) {
      // An indented line continues the item above it.
      items[items.length - 1] = `${items[items.length - 1] ?? ''} ${line.trim()}`;
    } else {
      flushList();
      paragraph.push(line.trim());
    }
  }
  flushParagraph();
  flushList();
  return blocks;
}

/**
 * Parses plain text: paragraphs are separated by blank lines (hard-wrapped lines are joined);
 * headings are guessed conservatively from underlined lines (`====`/`----`), and from lines on
 * their own in capitals or numbered like `2.1 Scope`, each followed by more text. Heading levels
 * follow the order the styles first appear, as reStructuredText does; numbered headings nest by
 * their depth.
 *
 * @param text - The decoded file.
 */
export function parseText(text: string): ParsedBody {
  const builder = new SectionBuilder();
  const styles: string[] = [];
  const level = (style: string): number => {
    if (!styles.includes(style)) styles.push(style);
    return styles.indexOf(style) + 1;
  };
  const chunks = text
    .replace(/\r\n?/g, '\n')
    .replace(/\f/g, '\n\n')
    .split(/\n[ \t]*\n/)
    .map((chunk) => chunk.split('\n').map((line) => line.trimEnd()))
    .map((lines) => lines.filter((line) => line !== ''))
    // Rules drawn with ---- or ==== on their own separate, they say nothing.
    .filter((lines) => lines.length > 0 && !lines.every((line) => RULE.test(line)));

  chunks.forEach((lines, index) => {
    const [first, second] = lines;
    if (first !== undefined && second !== undefined && UNDERLINE.test(second)) {
      const underline = second.trim();
      const title = first.trim();
      if (underline.length >= 3 && underline.length >= title.length * 0.5 && isHeadingLike(title)) {
        builder.heading({ text: title, level: level(`underline-${underline[0] ?? ''}`) });
        for (const block of bodyBlocks(lines.slice(2))) builder.block(block);
        return;
      }
    }
    const guess = lineHeading(lines);
    // A heading needs text after it; a run of one-line numbered blocks is a list, not headings.
    const isList =
      guess?.style.startsWith('numbered-') === true &&
      [chunks[index - 1], chunks[index + 1]].some(
        (other) => lineHeading(other)?.style === guess.style,
      );
    if (guess && index < chunks.length - 1 && !isList) {
      builder.heading({ text: guess.text, level: level(guess.style) });
      return;
    }
    for (const block of bodyBlocks(lines)) builder.block(block);
  });
  return {
    sections: builder.build(),
    ...(builder.firstHeading ? { title: builder.firstHeading } : {}),
  };
}
