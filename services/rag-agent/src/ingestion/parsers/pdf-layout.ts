import type { Block } from '../types';
import type { PdfTextItem } from './extract-pdf-text';
import type { ParsedBody } from './parsed-body';
import { SectionBuilder } from './section-builder';

/** A line of text on a page, rebuilt from pdf.js text items. */
interface Line {
  text: string;
  page: number;
  x: number;
  right: number;
  y: number;
  size: number;
}

const PAGE_NUMBER = /^(?:page\s+)?[-–—]?\s*\d{1,4}\s*[-–—]?(?:\s*(?:of|\/)\s*\d{1,4})?$/i;
const BULLET = /^[•◦▪‣●○■□–\-*]\s+/u;

/** Rounds a font size to the nearest half point, so 11.98 and 12 count as one size. */
function roundSize(size: number): number {
  return Math.round(size * 2) / 2;
}

/** Groups a page's items into lines by baseline, spacing runs apart where pdf.js left a gap. */
function pageLines(items: readonly PdfTextItem[], page: number): Line[] {
  const lines: Line[] = [];
  let current: (Line & { sizes: Map<number, number> }) | undefined;
  const finish = (): void => {
    if (!current) return;
    const text = current.text.replace(/\s+/g, ' ').trim();
    if (text !== '') {
      // The line's size is the one most of its characters are set in.
      const [size] = [...current.sizes].reduce(
        (best, entry) => (entry[1] > best[1] ? entry : best),
        [0, -1],
      );
      lines.push({ text, page, x: current.x, right: current.right, y: current.y, size });
    }
    current = undefined;
  };
  for (const item of items) {
    if (item.text.trim() === '') {
      if (current && item.text !== '') current.text += ' ';
      continue;
    }
    const size = roundSize(item.size);
    if (current && Math.abs(item.y - current.y) > 0.4 * Math.max(size, 1)) finish();
    if (!current) {
      current = { text: '', page, x: item.x, right: item.x, y: item.y, size, sizes: new Map() };
    } else if (
      item.x - current.right > 0.15 * size &&
      !/\s$/.test(current.text) &&
      !/^\s/.test(item.text)
    ) {
      current.text += ' ';
    }
    current.text += item.text;
    current.right = Math.max(current.right, item.x + item.width);
    current.sizes.set(size, (current.sizes.get(size) ?? 0) + item.text.length);
    if (item.eol) finish();
  }
  finish();
  return lines;
}

/**
 * Drops page numbers, and running headers and footers: among the first and last two lines of each
 * page, text no larger than the body's that recurs (digits aside) at the same height on at least
 * half the pages, and on three or more.
 */
function dropFurniture(pages: readonly Line[][], body: number): Line[][] {
  const key = (line: Line): string => `${Math.round(line.y)}|${line.text.replace(/\d+/g, '#')}`;
  const isEdge = (line: Line, index: number, count: number): boolean =>
    line.size <= body && (index < 2 || index >= count - 2);
  const seen = new Map<string, Set<number>>();
  for (const lines of pages) {
    lines.forEach((line, index) => {
      if (isEdge(line, index, lines.length))
        seen.set(key(line), (seen.get(key(line)) ?? new Set()).add(line.page));
    });
  }
  const threshold = Math.max(3, pages.length / 2);
  return pages.map((lines) =>
    lines.filter(
      (line, index) =>
        !PAGE_NUMBER.test(line.text) &&
        !(isEdge(line, index, lines.length) && (seen.get(key(line))?.size ?? 0) >= threshold),
    ),
  );
}

/** The size most characters are set in: the body text. */
function bodySize(lines: readonly Line[]): number {
  const counts = new Map<number, number>();
  for (const line of lines) counts.set(line.size, (counts.get(line.size) ?? 0) + line.text.length);
  return [...counts].reduce((best, entry) => (entry[1] > best[1] ? entry : best), [12, -1])[0];
}

/** The usual distance between consecutive body lines: a bigger gap starts a paragraph. */
function lineSpacing(pages: readonly Line[][], body: number): number {
  const gaps: number[] = [];
  for (const lines of pages) {
    for (let index = 1; index < lines.length; index++) {
      const above = lines[index - 1];
      const line = lines[index];
      if (!above || !line || above.size !== body || line.size !== body) continue;
      const gap = above.y - line.y;
      if (gap > 0 && gap < body * 3) gaps.push(gap);
    }
  }
  gaps.sort((a, b) => a - b);
  return gaps[Math.floor(gaps.length / 2)] ?? body * 1.2;
}

/** Conservative: clearly larger than the body text, short, and not ending like a sentence. */
function isHeadingLine(line: Line, body: number): boolean {
  return (
    line.size >= body * 1.2 &&
    line.text.length <= 120 &&
    line.text.split(' ').length <= 15 &&
    /\p{L}/u.test(line.text) &&
    !/[.,;]$/.test(line.text)
  );
}

/** Joins wrapped lines, mending words hyphenated across a line break. */
function joinLines(lines: readonly string[]): string {
  return lines.reduce((text, line) => {
    if (text === '') return line;
    if (/\p{L}-$/u.test(text) && /^\p{Ll}/u.test(line)) return text.slice(0, -1) + line;
    return `${text} ${line}`;
  }, '');
}

/**
 * Rebuilds structure from the text items of a PDF's pages: lines by baseline; paragraphs where
 * the gap between lines is clearly larger than usual, the text jumps up (a new column) or a
 * short line ends a sentence; bullet lists from lines starting with a bullet; headings only from
 * short lines set clearly larger than the body text (levels by size, largest first). Page
 * numbers and running headers and footers are dropped. Paragraphs do not run across pages, so
 * every block has one page.
 *
 * @param pages - Text items per page, from {@link extractPdfText}.
 */
export function pdfLayout(pages: readonly (readonly PdfTextItem[])[]): ParsedBody {
  const raw = pages.map((items, index) => pageLines(items, index + 1));
  const body = bodySize(raw.flat());
  const lines = dropFurniture(raw, body);
  const all = lines.flat();
  const spacing = lineSpacing(lines, body);
  const headingLines = all.filter((line) => isHeadingLine(line, body));
  // When much of the text is "large", size says nothing about structure: guess no headings.
  const guessHeadings = headingLines.length <= Math.max(3, all.length * 0.3);
  const headingSizes = [...new Set(headingLines.map((line) => Math.round(line.size)))].sort(
    (a, b) => b - a,
  );

  const builder = new SectionBuilder();
  for (const pageLines of lines) {
    let paragraph: Line[] = [];
    let list: { items: string[]; indent: number; page: number } | undefined;
    let heading: Line[] = [];
    const flushParagraph = (): void => {
      const [first] = paragraph;
      if (first) {
        const block: Block = {
          kind: 'paragraph',
          text: joinLines(paragraph.map((line) => line.text)),
          page: first.page,
        };
        builder.block(block);
      }
      paragraph = [];
    };
    const flushList = (): void => {
      if (list) builder.block({ kind: 'list', items: list.items, page: list.page });
      list = undefined;
    };
    const flushHeading = (): void => {
      const [first] = heading;
      if (first) {
        const level = Math.min(headingSizes.indexOf(Math.round(first.size)) + 1, 6);
        builder.heading({
          text: joinLines(heading.map((line) => line.text)),
          level,
          page: first.page,
        });
      }
      heading = [];
    };
    let above: Line | undefined;
    const widest = pageLines.reduce((most, line) => Math.max(most, line.right - line.x), 1);
    for (const line of pageLines) {
      const gap = above ? above.y - line.y : 0;
      const isHeading = guessHeadings && isHeadingLine(line, body);
      if (isHeading) {
        flushParagraph();
        flushList();
        const last = heading[heading.length - 1];
        // A heading that wraps: same size, right below.
        if (last && (Math.round(last.size) !== Math.round(line.size) || gap > line.size * 2))
          flushHeading();
        heading.push(line);
        above = line;
        continue;
      }
      flushHeading();
      const previous = above;
      const newParagraph =
        previous === undefined ||
        gap > spacing * 1.4 ||
        gap < -body ||
        Math.abs(previous.size - line.size) > 1 ||
        (/[.!?:]["”’)]?$/.test(previous.text) && previous.right - previous.x < widest * 0.8);
      const bullet = BULLET.exec(line.text);
      if (bullet) {
        flushParagraph();
        list ??= { items: [], indent: line.x, page: line.page };
        list.items.push(line.text.slice(bullet[0].length));
      } else if (list && !newParagraph && line.x > list.indent + 1) {
        // A wrapped item continues indented under its text.
        list.items[list.items.length - 1] = joinLines([
          list.items[list.items.length - 1] ?? '',
          line.text,
        ]);
      } else {
        flushList();
        if (newParagraph) flushParagraph();
        paragraph.push(line);
      }
      above = line;
    }
    flushHeading();
    flushParagraph();
    flushList();
  }
  return {
    sections: builder.build(),
    pages: pages.length,
    ...(builder.firstHeading ? { title: builder.firstHeading } : {}),
  };
}
