import ExcelJS, { type CellValue } from 'exceljs';
import { DocumentParseError } from '../document-parse-error';
import type { Section } from '../types';
import type { ParsedBody } from './parsed-body';
import { MAX_TABLE_ROWS, tableBlocks } from './table-blocks';

function formatDate(date: Date): string {
  const iso = date.toISOString();
  // Excel dates carry no zone; exceljs reads them as UTC. A date without a time reads as a date.
  if (iso.endsWith('T00:00:00.000Z')) return iso.slice(0, 10);
  return iso.replace('T', ' ').replace(/(:00)?\.000Z$/, '');
}

function formatNumber(value: number): string {
  // Excel keeps 15 significant digits; more is binary noise (0.30000000000000004).
  return Number.isInteger(value) ? String(value) : String(Number(value.toPrecision(15)));
}

/** A cell's value as the sheet shows it, roughly: formulas by their result, dates as ISO dates. */
function formatCell(value: CellValue): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return formatNumber(value);
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  if (value instanceof Date) return formatDate(value);
  if ('richText' in value) return value.richText.map((run) => run.text).join('');
  if ('hyperlink' in value)
    return typeof value.text === 'string' ? value.text : formatCell(value.text);
  if ('error' in value) return value.error;
  if ('result' in value) return formatCell(value.result);
  return '';
}

/**
 * Parses an Excel workbook: one section per visible or hidden sheet (named after it), each sheet
 * one table whose first non-empty row is the header, in blocks of 50 rows with the header
 * repeated; rows past 5000 are left out, noted in the text and in `metadata.truncatedSheets`.
 *
 * @param options - The file's name (for errors) and bytes.
 * @throws {@link DocumentParseError} when the file is not a readable .xlsx.
 */
export async function parseXlsx({
  filename,
  bytes,
}: {
  filename: string;
  bytes: Uint8Array;
}): Promise<ParsedBody> {
  const workbook = new ExcelJS.Workbook();
  try {
    // exceljs's typings want its own Buffer interface; a Node Buffer is what it reads.
    await workbook.xlsx.load(
      Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) as unknown as ExcelJS.Buffer,
    );
  } catch (error) {
    throw new DocumentParseError(
      filename,
      `Cannot read "${filename}": it is not a valid Excel workbook (the file may be damaged or truncated).`,
      {
        cause: error,
        details: { reason: error instanceof Error ? error.message.slice(0, 200) : 'unknown' },
      },
    );
  }
  const sections: Section[] = [];
  const truncatedSheets: { sheet: string; rows: number; keptRows: number }[] = [];
  for (const sheet of workbook.worksheets) {
    if (sheet.state === 'veryHidden') continue;
    const grid: string[][] = [];
    let rows = 0;
    sheet.eachRow({ includeEmpty: false }, (row) => {
      rows++;
      // Header plus one row past the cap, so tableBlocks sees that rows were cut.
      if (grid.length > MAX_TABLE_ROWS + 1) return;
      const cells: string[] = [];
      for (let column = 1; column <= row.cellCount; column++) {
        cells.push(formatCell(row.getCell(column).value));
      }
      grid.push(cells);
    });
    const table = tableBlocks(grid, { totalRows: Math.max(rows - 1, 0) });
    if (table.blocks.length === 0) continue;
    if (table.keptRows < table.totalRows) {
      truncatedSheets.push({ sheet: sheet.name, rows: table.totalRows, keptRows: table.keptRows });
    }
    sections.push({ path: [sheet.name], level: 1, blocks: table.blocks });
  }
  const title = workbook.title.trim();
  return {
    sections,
    ...(title ? { title } : {}),
    ...(truncatedSheets.length > 0 ? { metadata: { truncatedSheets } } : {}),
  };
}
