import { describe, expect, it } from '@jest/globals';
import { buildXlsx, utf8 } from './__fixtures__/build-fixtures';
import {
  amplifiedSharedStringsXlsx,
  pseudoProse,
  wideCsv,
  wideXlsx,
  workbookWithSheet,
} from './__fixtures__/build-hostile';
import { parseDocument } from './parse-document';
import { cutSheetRows } from './parsers/cut-sheet-rows';
import type { ParsedDocument, TableBlock } from './types';

function tables(doc: ParsedDocument): TableBlock[] {
  return doc.sections.flatMap((section) =>
    section.blocks.flatMap((block) => (block.kind === 'table' ? [block] : [])),
  );
}

function textLength(doc: ParsedDocument): number {
  return tables(doc).reduce(
    (sum, table) => sum + table.rows.slice(1).reduce((rows, row) => rows + row.join('').length, 0),
    0,
  );
}

describe('table limits (CSV and XLSX)', () => {
  it('cuts a sheet whose cells all reference one huge shared string to RAG_MAX_TEXT_CHARS, storing its start', async () => {
    // 50 rows × 10 cells, each the same 200,000-character string: 100 million characters once
    // expanded, from a file of a few hundred KiB.
    const bytes = amplifiedSharedStringsXlsx({ stringChars: 200_000, rows: 50, columns: 10 });
    const doc = await parseDocument({
      filename: 'amplified.xlsx',
      bytes,
      limits: { maxTextChars: 300_000 },
    });
    const [first] = tables(doc);
    expect(first?.rows[0]).toEqual(Array.from({ length: 10 }, (_, index) => `Column ${index + 1}`));
    expect(first?.rows[1]?.[0]?.startsWith(pseudoProse(100))).toBe(true);
    expect(textLength(doc)).toBeLessThanOrEqual(300_000);
    expect(doc.truncations).toContainEqual({ limit: 'maxTextChars', kept: 300_000 });
  });

  it('cuts the worksheet XML before the row whose shared strings would expand past the budget', () => {
    const row = (number: number) =>
      `<row r="${number}"><c r="A${number}" t="s"><v>0</v></c><c r="B${number}" t="s"><v>0</v></c></row>`;
    const xml = Buffer.from(
      `<worksheet><sheetData>${[1, 2, 3, 4, 5].map(row).join('')}</sheetData></worksheet>`,
    );
    const usage = { cells: 0, chars: 0 };
    const cut = cutSheetRows(xml, {
      keepRows: 100,
      maxCells: 1000,
      maxChars: 5_000_000,
      usage,
      sharedStringLength: () => 1_000_000,
    });
    // Header and first data row are kept whatever they cost (the parser cuts their text); the
    // third row would take the document past 5 million characters.
    expect(cut.rows).toBe(5);
    expect(cut.cut).toBe('maxTextChars');
    expect(cut.xml.toString()).toContain('<row r="2">');
    expect(cut.xml.toString()).not.toContain('<row r="3">');
    expect(cut.xml.toString().endsWith('</sheetData></worksheet>')).toBe(true);
    expect(usage).toEqual({ cells: 4, chars: 4_000_000 });
  });

  it('keeps RAG_MAX_COLUMNS columns of a sheet 16,384 wide without filling the gaps between its cells', async () => {
    const doc = await parseDocument({ filename: 'wide.xlsx', bytes: wideXlsx({ rows: 10 }) });
    const [first] = tables(doc);
    expect(first?.rows[0]).toEqual(['id']);
    expect(first?.rows.slice(1, 3)).toEqual([['1'], ['2']]);
    expect(doc.truncations).toContainEqual({
      limit: 'maxColumns',
      kept: 256,
      total: 16_384,
      where: 'sheet "Sheet1"',
    });
  });

  it('keeps RAG_MAX_COLUMNS columns of a CSV file whose header is 20,000 wide', async () => {
    const doc = await parseDocument({
      filename: 'wide.csv',
      bytes: wideCsv({ rows: 20 }),
      limits: { maxColumns: 50 },
    });
    const [first] = tables(doc);
    expect(first?.rows[0]).toHaveLength(50);
    expect(first?.rows[1]?.slice(0, 3)).toEqual(['1', 'value 1', '']);
    expect(doc.truncations).toContainEqual({ limit: 'maxColumns', kept: 50, total: 20_000 });
  });

  it('stops keeping rows at RAG_MAX_CELLS, counting short rows as wide as the header', async () => {
    const header = Array.from({ length: 100 }, (_, index) => `h${index}`).join(',');
    const rows = Array.from({ length: 100 }, (_, index) => `${index},x`);
    const doc = await parseDocument({
      filename: 'cells.csv',
      bytes: utf8(`${[header, ...rows].join('\n')}\n`),
      limits: { maxCells: 1000 },
    });
    // The header and nine rows of 100 cells each.
    expect(tables(doc).flatMap((table) => table.rows.slice(1))).toHaveLength(9);
    expect(doc.truncations).toContainEqual({ limit: 'maxCells', kept: 9, total: 100 });
  });

  it('stores a CSV file whose first data row is longer than RAG_MAX_TEXT_CHARS cut, saying so', async () => {
    const notes = pseudoProse(5000);
    const doc = await parseDocument({
      filename: 'notes.csv',
      bytes: utf8(`name,notes\nalpha,"${notes}"\nbeta,short\n`),
      limits: { maxTextChars: 1000 },
    });
    const [first] = tables(doc);
    expect(first?.rows[0]).toEqual(['name', 'notes']);
    expect(first?.rows[1]?.[0]).toBe('alpha');
    expect(notes.startsWith(first?.rows[1]?.[1] ?? 'x')).toBe(true);
    expect(textLength(doc)).toBeLessThanOrEqual(1000);
    expect(doc.truncations).toContainEqual(expect.objectContaining({ limit: 'maxTextChars' }));
  });

  it('stores a sheet whose first data row is longer than RAG_MAX_TEXT_CHARS cut, saying so', async () => {
    const notes = pseudoProse(5000);
    const bytes = await buildXlsx([
      {
        name: 'Notes',
        rows: [
          ['name', 'notes'],
          ['alpha', notes],
          ['beta', 'short'],
        ],
      },
    ]);
    const doc = await parseDocument({
      filename: 'notes.xlsx',
      bytes,
      limits: { maxTextChars: 1000 },
    });
    const [first] = tables(doc);
    expect(first?.rows[1]?.[0]).toBe('alpha');
    expect(notes.startsWith(first?.rows[1]?.[1] ?? 'x')).toBe(true);
    expect(doc.truncations).toContainEqual(expect.objectContaining({ limit: 'maxTextChars' }));
  });

  it('reads a workbook without the optional docProps/core.xml, titled after the file', async () => {
    const sheet =
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>' +
      '<row r="1"><c r="A1" t="inlineStr"><is><t>plan</t></is></c><c r="B1" t="inlineStr"><is><t>price</t></is></c></row>' +
      '<row r="2"><c r="A2" t="inlineStr"><is><t>Team</t></is></c><c r="B2"><v>12</v></c></row>' +
      '</sheetData></worksheet>';
    const doc = await parseDocument({ filename: 'prices.xlsx', bytes: workbookWithSheet(sheet) });
    expect(doc.title).toBe('prices');
    expect(tables(doc)[0]?.rows).toEqual([
      ['plan', 'price'],
      ['Team', '12'],
    ]);
  });
});
