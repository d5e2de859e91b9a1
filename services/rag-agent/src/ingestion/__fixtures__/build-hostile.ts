/**
 * Small documents that cost a parser far more than their size: a shared string referenced by
 * thousands of cells, sheets and CSV files thousands of columns wide, Markdown whose inline
 * parsing is quadratic. Each is valid and under every size limit; only the work it asks for is
 * out of proportion.
 */
import { buildZip, xlsxEntries, type ZipEntrySpec } from './build-compressed';

const S = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"';
const XML_HEAD = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>';

/** Words picked by a fixed linear congruential sequence: text that compresses like prose. */
export function pseudoProse(chars: number, seed = 7): string {
  const words = [
    'ledger',
    'invoice',
    'sensor',
    'quarter',
    'revenue',
    'calibration',
    'gateway',
    'firmware',
    'customer',
    'warranty',
    'shipment',
    'humidity',
    'threshold',
    'account',
    'renewal',
    'support',
  ];
  let state = seed;
  const out: string[] = [];
  let length = 0;
  while (length < chars) {
    state = (state * 1103515245 + 12345) % 2147483648;
    const word = `${words[state % words.length] ?? 'word'}${state % 97}`;
    out.push(word);
    length += word.length + 1;
  }
  return out.join(' ').slice(0, chars);
}

/** The column letters of a 1-based column number (1 → A, 16384 → XFD). */
export function columnName(column: number): string {
  let name = '';
  for (let rest = column; rest > 0; rest = Math.floor((rest - 1) / 26)) {
    name = String.fromCharCode(65 + ((rest - 1) % 26)) + name;
  }
  return name;
}

function inlineCell(reference: string, text: string): string {
  return `<c r="${reference}" t="inlineStr"><is><t>${text}</t></is></c>`;
}

function sheetXml(rows: readonly string[]): string {
  return `${XML_HEAD}<worksheet ${S}><sheetData>${rows.join('')}</sheetData></worksheet>`;
}

/** A one-sheet workbook (no `docProps/core.xml`) with the given worksheet XML and extra entries. */
export function workbookWithSheet(sheet: string, extra: readonly ZipEntrySpec[] = []): Uint8Array {
  return buildZip([...xlsxEntries({ data: sheet }), ...extra]);
}

/**
 * A workbook whose one shared string of `stringChars` characters is referenced by every data
 * cell: `rows` data rows of `columns` cells under a header row of short names. The archive stays
 * small (the string is stored once), but every reference expands to the whole string.
 */
export function amplifiedSharedStringsXlsx({
  stringChars = 1024 * 1024,
  rows = 2500,
  columns = 10,
}: { stringChars?: number; rows?: number; columns?: number } = {}): Uint8Array {
  const header = `<row r="1">${Array.from({ length: columns }, (_, index) =>
    inlineCell(`${columnName(index + 1)}1`, `Column ${index + 1}`),
  ).join('')}</row>`;
  const body: string[] = [header];
  for (let row = 2; row <= rows + 1; row++) {
    const cells = Array.from(
      { length: columns },
      (_, index) => `<c r="${columnName(index + 1)}${row}" t="s"><v>0</v></c>`,
    );
    body.push(`<row r="${row}">${cells.join('')}</row>`);
  }
  const sharedStrings = `${XML_HEAD}<sst ${S} count="${rows * columns}" uniqueCount="1"><si><t>${pseudoProse(stringChars)}</t></si></sst>`;
  return workbookWithSheet(sheetXml(body), [{ name: 'xl/sharedStrings.xml', data: sharedStrings }]);
}

/**
 * A sheet `columns` wide (16,384 is Excel's widest) and `rows` deep where each row holds only its
 * first and its last cell: a few bytes per row, but a grid of `columns` × `rows` cells to anyone
 * who fills the gaps.
 */
export function wideXlsx({
  columns = 16_384,
  rows = 2000,
}: { columns?: number; rows?: number } = {}): Uint8Array {
  const last = columnName(columns);
  const body: string[] = [
    `<row r="1">${inlineCell('A1', 'id')}${inlineCell(`${last}1`, 'last column')}</row>`,
  ];
  for (let row = 2; row <= rows + 1; row++) {
    body.push(
      `<row r="${row}"><c r="A${row}"><v>${row - 1}</v></c><c r="${last}${row}"><v>${row}</v></c></row>`,
    );
  }
  return workbookWithSheet(sheetXml(body));
}

/**
 * A CSV file whose header row has `columns` names and whose `rows` data rows have two values
 * each: small, but a table `columns` wide once the rows are padded to the header.
 */
export function wideCsv({
  columns = 20_000,
  rows = 200,
}: { columns?: number; rows?: number } = {}): Uint8Array {
  const header = Array.from({ length: columns }, (_, index) => `c${index + 1}`).join(',');
  const lines = [header];
  for (let row = 1; row <= rows; row++) lines.push(`${row},value ${row}`);
  return new TextEncoder().encode(`${lines.join('\n')}\n`);
}

/** Markdown of one paragraph like `a_b_a_b_…`: marked's emphasis scan is quadratic in it. */
export function underscoreMarkdown(chars = 256 * 1024): Uint8Array {
  return new TextEncoder().encode(`# Notes\n\n${'a_b_'.repeat(Math.ceil(chars / 4))}\n`);
}
