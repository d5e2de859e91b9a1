import type { TableCut, TableUsage } from './table-grid';

/**
 * Worksheet XML cut to its first rows, so that exceljs (which builds every row of a sheet in
 * memory, every cell an object) sees no more than the rows that can be indexed, and how many rows
 * there were.
 */
export interface CutSheet {
  /** The worksheet XML, cut after the kept rows (`</sheetData>` and what follows kept). */
  xml: Buffer;
  /** Rows with a value, header included. */
  rows: number;
  /** The limit that cut the rows, if one did. */
  cut?: TableCut;
}

/** The limits {@link cutSheetRows} keeps rows under. */
export interface SheetBudget {
  /** Rows with a value kept (the header and the data rows). */
  keepRows: number;
  /** Cells (`<c>` elements) the document's sheets may hold in all. */
  maxCells: number;
  /** Characters the document's cells may expand to in all (shared strings counted in full). */
  maxChars: number;
  /** What the document's earlier sheets used; updated. */
  usage: TableUsage;
  /** The length of shared string `index` (`xl/sharedStrings.xml`), 0 if unknown. */
  sharedStringLength: (index: number) => number;
}

const ROW_OPEN = Buffer.from('<row', 'latin1');
const ROW_CLOSE = Buffer.from('</row>', 'latin1');
const SHEET_DATA_CLOSE = Buffer.from('</sheetData>', 'latin1');
const VALUE_MARKERS = ['<v>', '<v ', '<is>', '<is ', '<f>', '<f '].map((marker) =>
  Buffer.from(marker, 'latin1'),
);

const SHARED = /\bt\s*=\s*["']s["']/;
const VALUE = /<v>([^<]*)<\/v>/;
const TEXT = /<t\b[^>]*>([^<]*)<\/t>/g;

/** Whether `bytes[start, end)` holds a cell value (`<v>`, an inline string, or a formula). */
function hasValue(bytes: Buffer, start: number, end: number): boolean {
  const row = bytes.subarray(start, end);
  return VALUE_MARKERS.some((marker) => row.includes(marker));
}

/**
 * The cells of a row and the characters they expand to: a shared string (`t="s"`) counts its
 * full length however often it is referenced, which is what every reference costs once read.
 * One forward scan with `indexOf` (a cell without its end tag ends the row), linear in the row.
 */
function rowCost(
  row: string,
  sharedStringLength: (index: number) => number,
): { cells: number; chars: number } {
  let cells = 0;
  let chars = 0;
  let position = 0;
  for (;;) {
    const open = row.indexOf('<c', position);
    if (open < 0) break;
    const next = row[open + 2];
    if (
      next !== ' ' &&
      next !== '>' &&
      next !== '/' &&
      next !== '\t' &&
      next !== '\n' &&
      next !== '\r'
    ) {
      position = open + 2;
      continue;
    }
    const tagEnd = row.indexOf('>', open);
    if (tagEnd < 0) break;
    cells += 1;
    if (row[tagEnd - 1] === '/') {
      position = tagEnd + 1;
      continue;
    }
    const close = row.indexOf('</c>', tagEnd);
    const content = row.slice(tagEnd + 1, close < 0 ? row.length : close);
    const value = VALUE.exec(content)?.[1];
    if (SHARED.test(row.slice(open, tagEnd))) {
      chars += sharedStringLength(Number(value));
    } else if (value !== undefined) {
      chars += value.length;
    } else {
      TEXT.lastIndex = 0;
      for (let text = TEXT.exec(content); text !== null; text = TEXT.exec(content)) {
        chars += text[1]?.length ?? 0;
      }
    }
    if (close < 0) break;
    position = close + 4;
  }
  return { cells, chars };
}

/**
 * Keeps the first rows that hold a value (and any blank ones between them) while they fit the
 * budget, drops the rest, and counts them all: a linear scan of `<row>` elements, without parsing
 * the XML. Rows stop after `keepRows`, or before the row that would take the document past
 * `maxCells` cells or `maxChars` characters (the header and the first data row are always kept;
 * the parser cuts their text). Shared strings are counted as long as they are, so a sheet whose
 * thousands of cells reference one huge string is cut before exceljs builds it. A sheet whose XML
 * does not look like SpreadsheetML's comes back whole, with the rows it could count.
 */
export function cutSheetRows(xml: Buffer, budget: SheetBudget): CutSheet {
  const dataEnd = xml.lastIndexOf(SHEET_DATA_CLOSE);
  if (dataEnd < 0) return { xml, rows: 0 };
  const { keepRows, maxCells, maxChars, usage, sharedStringLength } = budget;
  let rows = 0;
  let kept = 0;
  let cutAt: number | undefined;
  let cut: TableCut | undefined;
  let position = 0;
  for (;;) {
    const open = xml.indexOf(ROW_OPEN, position);
    if (open < 0 || open >= dataEnd) break;
    const after = xml[open + ROW_OPEN.length];
    // `<row ` or `<row>`, not `<rowBreaks`.
    if (after !== 0x20 && after !== 0x3e && after !== 0x09 && after !== 0x0a && after !== 0x0d) {
      position = open + ROW_OPEN.length;
      continue;
    }
    const tagEnd = xml.indexOf(0x3e, open);
    if (tagEnd < 0) break;
    let rowEnd: number;
    if (xml[tagEnd - 1] === 0x2f) {
      rowEnd = tagEnd + 1;
    } else {
      const close = xml.indexOf(ROW_CLOSE, tagEnd);
      if (close < 0 || close > dataEnd) break;
      rowEnd = close + ROW_CLOSE.length;
      if (hasValue(xml, tagEnd, close)) {
        rows++;
        if (cut === undefined) {
          const cost = rowCost(xml.toString('latin1', tagEnd, close), sharedStringLength);
          const mustKeep = kept < 2;
          if (kept >= keepRows) cut = 'maxRows';
          else if (!mustKeep && usage.cells + cost.cells > maxCells) cut = 'maxCells';
          else if (!mustKeep && usage.chars + cost.chars > maxChars) cut = 'maxTextChars';
          if (cut === undefined) {
            kept++;
            usage.cells += cost.cells;
            usage.chars += cost.chars;
            cutAt = rowEnd;
          }
        }
      }
    }
    position = rowEnd;
  }
  if (cut === undefined || cutAt === undefined) return { xml, rows };
  return { xml: Buffer.concat([xml.subarray(0, cutAt), xml.subarray(dataEnd)]), rows, cut };
}

/**
 * The length of each shared string (`xl/sharedStrings.xml`): the characters of its `<t>` runs,
 * entities counted as written (close enough to bound what the cells referencing it expand to).
 * One forward scan; an item without its end tag ends the table.
 */
export function sharedStringLengths(xml: Buffer): number[] {
  const text = xml.toString('utf8');
  const lengths: number[] = [];
  let position = 0;
  for (;;) {
    const open = text.indexOf('<si', position);
    if (open < 0) break;
    const next = text[open + 3];
    if (next !== '>' && next !== ' ' && next !== '/') {
      position = open + 3;
      continue;
    }
    const tagEnd = text.indexOf('>', open);
    if (tagEnd < 0) break;
    if (text[tagEnd - 1] === '/') {
      lengths.push(0);
      position = tagEnd + 1;
      continue;
    }
    const close = text.indexOf('</si>', tagEnd);
    const content = text.slice(tagEnd + 1, close < 0 ? text.length : close);
    let length = 0;
    TEXT.lastIndex = 0;
    for (let run = TEXT.exec(content); run !== null; run = TEXT.exec(content)) {
      length += run[1]?.length ?? 0;
    }
    lengths.push(length);
    if (close < 0) break;
    position = close + 5;
  }
  return lengths;
}
