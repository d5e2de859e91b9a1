import type { Block } from '../types';
import { normalizeInline } from './section-builder';

/** Data rows per table block: each block repeats the header row, so every piece reads alone. */
export const ROWS_PER_TABLE_BLOCK = 50;

/** Data rows kept from one table or sheet by default (RAG_MAX_ROWS); the rest is dropped and noted. */
export const MAX_TABLE_ROWS = 5000;

/** Options for {@link tableBlocks}. */
export interface TableBlocksOptions {
  /** @default {@link ROWS_PER_TABLE_BLOCK} */
  rowsPerBlock?: number;
  /** @default {@link MAX_TABLE_ROWS} */
  maxRows?: number;
  /** Data rows in the source, when `grid` holds only the first of them. */
  totalRows?: number;
}

/** A grid turned into table blocks. */
export interface TableBlocksResult {
  blocks: Block[];
  /** Data rows in the source, header excluded. */
  totalRows: number;
  /** Data rows kept. */
  keptRows: number;
}

/**
 * Turns a grid of cells (first non-empty row = header) into table blocks of at most
 * `rowsPerBlock` data rows, each starting with the header. Blank rows and trailing blank
 * columns are dropped; rows past `maxRows` are dropped and a paragraph says so.
 *
 * @param grid - Rows of cell text.
 * @param options - Row limits.
 */
export function tableBlocks(
  grid: readonly (readonly string[])[],
  {
    rowsPerBlock = ROWS_PER_TABLE_BLOCK,
    maxRows = MAX_TABLE_ROWS,
    totalRows,
  }: TableBlocksOptions = {},
): TableBlocksResult {
  const rows = grid
    .map((row) => row.map((cell) => normalizeInline(cell)))
    .filter((row) => row.some((cell) => cell !== ''));
  const width = rows.reduce((widest, row) => {
    let last = row.length - 1;
    while (last >= 0 && row[last] === '') last--;
    return Math.max(widest, last + 1);
  }, 0);
  const [header, ...data] = rows.map((row) =>
    Array.from({ length: width }, (_, index) => row[index] ?? ''),
  );
  if (!header) return { blocks: [], totalRows: 0, keptRows: 0 };
  const kept = data.slice(0, maxRows);
  const total = Math.max(totalRows ?? 0, data.length);
  const blocks: Block[] = [];
  if (kept.length === 0) blocks.push({ kind: 'table', rows: [header] });
  for (let start = 0; start < kept.length; start += rowsPerBlock) {
    blocks.push({ kind: 'table', rows: [header, ...kept.slice(start, start + rowsPerBlock)] });
  }
  if (total > kept.length) {
    blocks.push({
      kind: 'paragraph',
      text: `Table truncated: the first ${kept.length} of ${total} rows are indexed.`,
    });
  }
  return { blocks, totalRows: total, keptRows: kept.length };
}
