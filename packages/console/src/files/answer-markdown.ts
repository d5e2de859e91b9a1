/**
 * The little Markdown the console reads in an answer, as plain data the page renders with text
 * nodes only (there is no HTML in it, and no raw HTML passes: `<script>` stays the text
 * `<script>`):
 *
 * - GitHub pipe tables become {@link TableBlock}s;
 * - fenced code (```` ``` ````) stays text, untouched (a `|` in it makes no table);
 * - `![alt](/v1/files/file-…/content)` becomes a run file's image, `[text](/v1/files/file-…/content)`
 *   its download, `[text](https://…)` a link; any other link or image stays as written.
 *
 * Everything else is text, shown as written (line breaks kept), as before.
 */
import { fileIdFromUrl } from './file-view';

/** A piece of a line. */
export type Inline =
  | { kind: 'text'; text: string }
  /** `![alt](/v1/files/file-…/content)`: shown as an image when its bytes are an image. */
  | { kind: 'file-image'; fileId: string; alt: string }
  /** `[text](/v1/files/file-…/content)`: a download through the signed-in key. */
  | { kind: 'file-link'; fileId: string; text: string }
  /** `[text](https://…)`. */
  | { kind: 'link'; href: string; text: string };

/** Text as written, with its files and links picked out. */
export interface TextBlock {
  kind: 'text';
  inlines: Inline[];
}

/** A fenced code block, shown as written. */
export interface CodeBlock {
  kind: 'code';
  text: string;
}

/** Column alignment of a pipe table (from its delimiter row). */
export type Align = 'left' | 'center' | 'right' | undefined;

/** A pipe table: every row has as many cells as the header. */
export interface TableBlock {
  kind: 'table';
  header: Inline[][];
  align: Align[];
  rows: Inline[][][];
  /** Rows left out past {@link MAX_TABLE_ROWS}. */
  omittedRows: number;
}

export type Block = TextBlock | CodeBlock | TableBlock;

/** Rows of one table shown; the rest are counted. */
export const MAX_TABLE_ROWS = 500;
/** Columns of one table kept. */
export const MAX_TABLE_COLUMNS = 40;
/** Characters of an answer read as Markdown; the rest is text as written. */
export const MAX_MARKDOWN_LENGTH = 200_000;

const DELIMITER_CELL = /^\s*(:?)-+(:?)\s*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/** A table row's cells: split on `|` not escaped by `\`, outer pipes dropped, `\|` made `|`. */
export function splitRow(line: string): string[] {
  let body = line.trim();
  if (body.startsWith('|')) body = body.slice(1);
  if (body.endsWith('|') && !body.endsWith('\\|')) body = body.slice(0, -1);
  const cells: string[] = [];
  let cell = '';
  for (let index = 0; index < body.length; index += 1) {
    const char = body[index];
    if (char === '\\' && body[index + 1] === '|') {
      cell += '|';
      index += 1;
    } else if (char === '|') {
      cells.push(cell.trim());
      cell = '';
    } else {
      cell += char;
    }
  }
  cells.push(cell.trim());
  return cells;
}

function delimiterAlign(line: string): Align[] | undefined {
  if (!line.includes('-')) return undefined;
  const cells = splitRow(line);
  const align: Align[] = [];
  for (const cell of cells) {
    const match = DELIMITER_CELL.exec(cell);
    if (match === null) return undefined;
    const left = match[1] === ':';
    const right = match[2] === ':';
    align.push(left && right ? 'center' : right ? 'right' : left ? 'left' : undefined);
  }
  return align;
}

function fitRow(cells: string[], width: number): string[] {
  const fitted = cells.slice(0, width);
  while (fitted.length < width) fitted.push('');
  return fitted;
}

function appendText(inlines: Inline[], text: string): void {
  if (text === '') return;
  const last = inlines.at(-1);
  if (last?.kind === 'text') last.text += text;
  else inlines.push({ kind: 'text', text });
}

/** Longest link text read as a link's; a longer one stays text. */
export const MAX_LINK_LABEL = 500;
/** Longest link target read; a longer one stays text. */
export const MAX_LINK_TARGET = 2000;

/**
 * Finds `[…](…)` links in one text: the next `]` and `)` are remembered between calls, and link
 * texts and targets have a length limit, so text with many brackets (an agent's output can be
 * anything) is read in about one pass.
 */
function linkFinder(
  text: string,
): (start: number) => { label: string; target: string; end: number } | undefined {
  let closeBracket = -2;
  let closeParen = -2;
  /** The next `char` at or after `from`: -1 when there is none, -2 before the first search. */
  const next = (char: string, from: number, cached: number): number => {
    if (cached === -1 || cached >= from) return cached;
    return text.indexOf(char, from);
  };
  return (start) => {
    closeBracket = next(']', start + 1, closeBracket);
    const labelEnd = closeBracket;
    if (labelEnd < 0 || labelEnd - start - 1 > MAX_LINK_LABEL || text[labelEnd + 1] !== '(') {
      return undefined;
    }
    const label = text.slice(start + 1, labelEnd);
    if (label.includes('[') || label.includes('\n')) return undefined;
    closeParen = next(')', labelEnd + 2, closeParen);
    const targetEnd = closeParen;
    if (targetEnd < 0 || targetEnd - labelEnd - 2 > MAX_LINK_TARGET) return undefined;
    // An optional title after the URL (`(url "title")`) is dropped.
    const target =
      text
        .slice(labelEnd + 2, targetEnd)
        .trim()
        .split(/\s+/)[0] ?? '';
    if (target === '' || target.includes('\n')) return undefined;
    return { label, target, end: targetEnd + 1 };
  };
}

/**
 * One line's (or cell's) pieces: run-file images and links, `http(s)` links, and text. A link to
 * anything else (`javascript:`, `data:`, another path) is text as written.
 */
export function parseInlines(text: string, origin?: string): Inline[] {
  const inlines: Inline[] = [];
  const linkAt = linkFinder(text);
  let index = 0;
  let plainFrom = 0;
  while (index < text.length) {
    const image = text[index] === '!' && text[index + 1] === '[';
    const open = image ? index + 1 : index;
    if (text[open] !== '[') {
      index += 1;
      continue;
    }
    const link = linkAt(open);
    if (link === undefined) {
      index = open + 1;
      continue;
    }
    const fileId = fileIdFromUrl(link.target, origin);
    let piece: Inline | undefined;
    if (fileId !== undefined) {
      piece = image
        ? { kind: 'file-image', fileId, alt: link.label }
        : { kind: 'file-link', fileId, text: link.label === '' ? fileId : link.label };
    } else if (!image && /^https?:\/\/[^\s]+$/i.test(link.target)) {
      piece = {
        kind: 'link',
        href: link.target,
        text: link.label === '' ? link.target : link.label,
      };
    }
    if (piece === undefined) {
      index = link.end;
      continue;
    }
    appendText(inlines, text.slice(plainFrom, index));
    inlines.push(piece);
    index = link.end;
    plainFrom = index;
  }
  appendText(inlines, text.slice(plainFrom));
  return inlines;
}

/**
 * An answer's blocks. Text between tables and code keeps its line breaks; a table is a header
 * line with `|`, a delimiter line (`| --- | :-: |`) with as many cells, and the lines with `|`
 * that follow.
 */
export function parseAnswer(markdown: string, origin?: string): Block[] {
  const read = markdown.slice(0, MAX_MARKDOWN_LENGTH);
  const rest = markdown.slice(MAX_MARKDOWN_LENGTH);
  const lines = read.split('\n');
  const blocks: Block[] = [];
  let text: string[] = [];
  /** Ends the text so far; blank lines next to a table or code block are the block's margin. */
  const flushText = (beforeBlock: boolean): void => {
    if (blocks.length > 0)
      while (text.length > 0 && (text[0] as string).trim() === '') text.shift();
    if (beforeBlock) while (text.length > 0 && (text.at(-1) as string).trim() === '') text.pop();
    if (text.length === 0) return;
    blocks.push({ kind: 'text', inlines: parseInlines(text.join('\n'), origin) });
    text = [];
  };

  for (let index = 0; index < lines.length;) {
    const line = lines[index] as string;
    const fence = FENCE.exec(line);
    if (fence !== null) {
      const marker = fence[1] as string;
      let end = index + 1;
      while (end < lines.length && !(lines[end] as string).trimStart().startsWith(marker)) end += 1;
      flushText(true);
      blocks.push({ kind: 'code', text: lines.slice(index, end + 1).join('\n') });
      index = end + 1;
      // The line break after the fence belongs to the next text.
      continue;
    }
    const next = lines[index + 1];
    if (line.includes('|') && next !== undefined) {
      const align = delimiterAlign(next);
      const header = splitRow(line);
      if (align !== undefined && align.length === header.length) {
        const width = Math.min(header.length, MAX_TABLE_COLUMNS);
        const rows: Inline[][][] = [];
        let omittedRows = 0;
        let end = index + 2;
        while (end < lines.length) {
          const row = lines[end] as string;
          if (row.trim() === '' || !row.includes('|') || FENCE.test(row)) break;
          if (rows.length < MAX_TABLE_ROWS) {
            rows.push(fitRow(splitRow(row), width).map((cell) => parseInlines(cell, origin)));
          } else {
            omittedRows += 1;
          }
          end += 1;
        }
        flushText(true);
        blocks.push({
          kind: 'table',
          header: fitRow(header, width).map((cell) => parseInlines(cell, origin)),
          align: align.slice(0, width),
          rows,
          omittedRows,
        });
        index = end;
        continue;
      }
    }
    text.push(line);
    index += 1;
  }
  flushText(false);
  if (rest !== '') blocks.push({ kind: 'text', inlines: [{ kind: 'text', text: rest }] });
  return blocks;
}
