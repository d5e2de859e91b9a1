import ExcelJS, { type CellValue } from 'exceljs';
import { decodeXML } from 'entities';
import { FleetError } from '@fleet/errors';
import { DamagedArchiveError, writeStoredZip, ZipArchive } from '../archive';
import { DocumentParseError } from '../document-parse-error';
import type { IngestLimits, Truncation } from '../limits';
import type { Section } from '../types';
import { cutSheetRows, sharedStringLengths } from './cut-sheet-rows';
import type { ParsedBody } from './parsed-body';
import { tableBlocks } from './table-blocks';
import { TableGrid, type TableCut, type TableUsage } from './table-grid';

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

const WORKSHEET = /^xl\/worksheets\/[^/]+\.xml$/i;
const XML_PART = /\.(xml|rels|vml)$/i;
const SHARED_STRINGS = 'xl/sharedStrings.xml';

function xmlAttribute(tag: string, name: string): string | undefined {
  const match = new RegExp(`\\s${name}\\s*=\\s*("([^"]*)"|'([^']*)')`).exec(tag);
  const value = match?.[2] ?? match?.[3];
  return value === undefined ? undefined : decodeXML(value);
}

/** The sheet names by worksheet part (`xl/worksheets/sheet1.xml` → `Orders`), from workbook.xml and its relationships. */
async function sheetNamesByPart(archive: ZipArchive): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  if (!archive.has('xl/workbook.xml') || !archive.has('xl/_rels/workbook.xml.rels')) return names;
  const workbook = (await archive.read('xl/workbook.xml')).toString('utf8');
  const relations = (await archive.read('xl/_rels/workbook.xml.rels')).toString('utf8');
  const targets = new Map<string, string>();
  for (const [tag] of relations.matchAll(/<Relationship\b[^>]*>/g)) {
    const id = xmlAttribute(tag, 'Id');
    const target = xmlAttribute(tag, 'Target');
    if (id === undefined || target === undefined) continue;
    targets.set(id, target.startsWith('/') ? target.slice(1) : `xl/${target}`);
  }
  for (const [tag] of workbook.matchAll(/<sheet\b[^>]*>/g)) {
    const name = xmlAttribute(tag, 'name');
    const id = xmlAttribute(tag, 'r:id') ?? xmlAttribute(tag, '[a-zA-Z0-9]+:id');
    const part = id === undefined ? undefined : targets.get(id);
    if (name !== undefined && part !== undefined) names.set(part, name);
  }
  return names;
}

function invalidWorkbook(filename: string, error: unknown): DocumentParseError {
  return new DocumentParseError(
    filename,
    `Cannot read "${filename}": it is not a valid Excel workbook (the file may be damaged or truncated).`,
    {
      cause: error,
      details: { reason: error instanceof Error ? error.message.slice(0, 200) : 'unknown' },
    },
  );
}

/** A worksheet as {@link cutSheetRows} left it: its rows with a value, and the limit that cut it. */
interface SheetCount {
  rows: number;
  cut?: TableCut | undefined;
}

/**
 * Unpacks the workbook under the limits for exceljs: XML parts read through {@link ZipArchive}
 * (bounded, depth-checked), worksheets cut ({@link cutSheetRows}) after `maxRows` data rows or
 * before the document's cells pass `maxCells` or its text `maxTextChars` characters (shared
 * strings counted at their full length for every reference, from `xl/sharedStrings.xml`),
 * pictures and other binary parts left empty (nothing of them is indexed), all stored
 * uncompressed in a new archive, so exceljs's own unzipping has nothing to inflate.
 *
 * @returns The archive for exceljs and each sheet's rows (with a value, header included) by name.
 */
async function boundedWorkbook(
  bytes: Uint8Array,
  { filename, limits }: { filename: string; limits: IngestLimits },
): Promise<{ archive: Buffer; sheets: Map<string, SheetCount> }> {
  const archive = ZipArchive.open(bytes, { filename, limits });
  const names = await sheetNamesByPart(archive);
  const shared = archive.has(SHARED_STRINGS)
    ? sharedStringLengths(await archive.read(SHARED_STRINGS))
    : [];
  const usage: TableUsage = { cells: 0, chars: 0 };
  const sheets = new Map<string, SheetCount>();
  const parts: { name: string; data: Uint8Array }[] = [];
  for (const name of archive.entries.keys()) {
    if (!XML_PART.test(name)) {
      parts.push({ name, data: new Uint8Array(0) });
      continue;
    }
    let data = await archive.read(name);
    if (WORKSHEET.test(name)) {
      // The header and the rows kept; the count goes on to the end.
      const cut = cutSheetRows(data, {
        keepRows: limits.maxRows + 1,
        maxCells: limits.maxCells,
        maxChars: limits.maxTextChars,
        usage,
        sharedStringLength: (index) => shared[index] ?? 0,
      });
      data = cut.xml;
      const sheet = names.get(name);
      if (sheet !== undefined) sheets.set(sheet, { rows: cut.rows, cut: cut.cut });
    }
    parts.push({ name, data });
  }
  return { archive: writeStoredZip(parts), sheets };
}

/**
 * One row's cell text from its first column, at most `maxColumns` of them (exceljs keeps a row's
 * cells sparse: only the cells present are visited, however far apart), and how many columns
 * the row spans.
 */
function rowCells(row: ExcelJS.Row, maxColumns: number): { cells: string[]; columns: number } {
  const cells: string[] = [];
  let columns = 0;
  row.eachCell({ includeEmpty: false }, (cell, column) => {
    columns = Math.max(columns, column);
    if (column <= maxColumns) cells[column - 1] = formatCell(cell.value);
  });
  for (let index = 0; index < cells.length; index++) cells[index] ??= '';
  return { cells, columns };
}

/**
 * Parses an Excel workbook: one section per visible or hidden sheet (named after it), each sheet
 * one table whose first non-empty row is the header, in blocks of 50 rows with the header
 * repeated. What exceljs reads is cut first ({@link boundedWorkbook}), and the rows it built are
 * kept under the same limits ({@link TableGrid}: `maxColumns` columns, `maxRows` rows, the
 * document's `maxCells` cells and `maxTextChars` characters); what is left out is noted in the
 * text, in `metadata.truncatedSheets` and in `truncations`. The archive is read under the limits.
 * The title is the workbook's own (`docProps/core.xml`, which is optional), if it has one.
 *
 * @param options - The file's name (for errors), bytes and the limits.
 * @throws {@link DocumentParseError} when the file is not a readable .xlsx or nests too deep;
 *   `DocumentLimitError` when it unpacks to more than the limits allow.
 */
export async function parseXlsx({
  filename,
  bytes,
  limits,
}: {
  filename: string;
  bytes: Uint8Array;
  limits: IngestLimits;
}): Promise<ParsedBody> {
  const workbook = new ExcelJS.Workbook();
  let counts: Map<string, SheetCount>;
  try {
    const bounded = await boundedWorkbook(bytes, { filename, limits });
    counts = bounded.sheets;
    // exceljs's typings want its own Buffer interface; a Node Buffer is what it reads.
    await workbook.xlsx.load(bounded.archive as unknown as ExcelJS.Buffer);
  } catch (error) {
    if (error instanceof DamagedArchiveError) throw invalidWorkbook(filename, error);
    if (FleetError.isInstance(error)) throw error;
    throw invalidWorkbook(filename, error);
  }
  const sections: Section[] = [];
  const truncatedSheets: { sheet: string; rows: number; keptRows: number }[] = [];
  const truncations: Truncation[] = [];
  const usage: TableUsage = { cells: 0, chars: 0 };
  for (const sheet of workbook.worksheets) {
    if (sheet.state === 'veryHidden') continue;
    const grid = new TableGrid({ limits, usage });
    sheet.eachRow({ includeEmpty: false }, (row) => {
      if (grid.full) {
        grid.count();
        return;
      }
      const { cells, columns } = rowCells(row, limits.maxColumns);
      grid.add(cells, columns);
    });
    const counted = counts.get(sheet.name);
    const totalRows = Math.max((counted?.rows ?? 0) - 1, grid.dataRows);
    const table = tableBlocks(grid.rows, { maxRows: limits.maxRows, totalRows });
    if (table.blocks.length === 0) continue;
    const where = `sheet "${sheet.name}"`;
    truncations.push(...grid.truncations({ where, totalRows, cutBefore: counted?.cut }));
    if (table.keptRows < table.totalRows) {
      truncatedSheets.push({ sheet: sheet.name, rows: table.totalRows, keptRows: table.keptRows });
    }
    sections.push({ path: [sheet.name], level: 1, blocks: table.blocks });
  }
  // `title` comes from docProps/core.xml, a part a workbook may leave out.
  const title = (workbook.title as string | undefined)?.trim() ?? '';
  return {
    sections,
    ...(title ? { title } : {}),
    ...(truncatedSheets.length > 0 ? { metadata: { truncatedSheets } } : {}),
    ...(truncations.length > 0 ? { truncations } : {}),
  };
}
