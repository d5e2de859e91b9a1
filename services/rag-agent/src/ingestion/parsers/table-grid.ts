import type { IngestLimits, Truncation } from '../limits';
import { normalizeInline } from './section-builder';

/**
 * What the tables of one document have used so far: cells (rows padded to the table's width) and
 * characters. Shared by every sheet of a workbook, so the limits hold per document.
 */
export interface TableUsage {
  cells: number;
  chars: number;
}

/** Why a table stopped keeping rows before its end. */
export type TableCut = 'maxRows' | 'maxCells' | 'maxTextChars';

/** Options for {@link TableGrid}. */
export interface TableGridOptions {
  limits: Pick<IngestLimits, 'maxRows' | 'maxColumns' | 'maxCells' | 'maxTextChars'>;
  /** The document's usage, shared with its other tables. @default a fresh one */
  usage?: TableUsage;
}

/**
 * The rows of one table (a CSV file, an XLSX sheet) kept under the ingestion limits, built row by
 * row so that nothing past a limit is ever copied: the first row is the header; at most
 * `maxColumns` columns and `maxRows` data rows are kept; rows stop once the document's tables
 * reach `maxCells` cells (short rows count as wide as the header, since they are padded to it)
 * or `maxTextChars` characters. Each kept cell is cut to the characters left before its
 * whitespace is normalized, so a cell that references a huge shared string costs no more than the
 * text that is kept. The header and the first data row are always kept (cut if they must be), so
 * a table whose first row is too long is stored cut rather than refused.
 *
 * Rows after the last kept one are still counted, for the truncation's total.
 *
 * @example
 * const grid = new TableGrid({ limits, usage });
 * for (const record of records) if (!grid.add(record)) break;
 * const { blocks } = tableBlocks(grid.rows, { maxRows: limits.maxRows, totalRows: grid.dataRows });
 */
export class TableGrid {
  /** The kept rows, header first, cells normalized. */
  readonly rows: string[][] = [];
  private readonly limits: TableGridOptions['limits'];
  private readonly usage: TableUsage;
  private seen = 0;
  private widest = 0;
  private width = 0;
  private cut: TableCut | undefined;
  private cellsCut = false;

  constructor({ limits, usage = { cells: 0, chars: 0 } }: TableGridOptions) {
    this.limits = limits;
    this.usage = usage;
  }

  /** True once no further row will be kept (later rows are only counted). */
  get full(): boolean {
    return this.cut !== undefined;
  }

  /** Data rows seen (header excluded), kept or not. */
  get dataRows(): number {
    return Math.max(this.seen - 1, 0);
  }

  /** Data rows kept. */
  get keptRows(): number {
    return Math.max(this.rows.length - 1, 0);
  }

  /** Counts a row with a value that is not kept (the caller already knows the grid is full). */
  count(columns = 0): void {
    this.seen += 1;
    this.widest = Math.max(this.widest, columns);
  }

  /**
   * Adds the next row with a value: kept if the limits allow, else only counted.
   *
   * @param cells - The row's cell text, from its first column.
   * @param columns - How many columns the row spans in the source when `cells` is already cut
   *   (a sheet's last column number). @default cells.length
   * @returns False once the grid is full.
   */
  add(cells: readonly string[], columns = cells.length): boolean {
    this.count(columns);
    if (this.cut !== undefined) return false;
    const { maxRows, maxColumns, maxCells, maxTextChars } = this.limits;
    if (this.rows.length > maxRows) {
      this.cut = 'maxRows';
      return false;
    }
    const kept = cells.length > maxColumns ? cells.slice(0, maxColumns) : cells;
    // Header and first data row are kept whatever they cost; a later row only if it fits.
    const mustKeep = this.rows.length < 2;
    const width = Math.max(this.width, kept.length);
    if (!mustKeep && this.usage.cells + width > maxCells) {
      this.cut = 'maxCells';
      return false;
    }
    let length = 0;
    for (const cell of kept) length += cell.length;
    const left = maxTextChars - this.usage.chars;
    if (!mustKeep && length > left) {
      this.cut = 'maxTextChars';
      return false;
    }
    const row: string[] = [];
    let budget = Math.max(left, 0);
    for (const cell of kept) {
      const text = cell.length > budget ? cell.slice(0, budget) : cell;
      if (text.length < cell.length) this.cellsCut = true;
      budget -= text.length;
      row.push(normalizeInline(text));
    }
    this.usage.cells += width;
    this.usage.chars += Math.min(length, Math.max(left, 0));
    this.width = width;
    this.rows.push(row);
    if (this.cellsCut) this.cut = 'maxTextChars';
    return this.cut === undefined;
  }

  /**
   * What was left out, as truncations: columns past `maxColumns`, and rows past the first limit
   * reached (`cutBefore` is a cut made before the rows reached the grid, e.g. a sheet's XML cut by
   * the same limits; `totalRows` the data rows the source holds, when known better).
   */
  truncations({
    where,
    totalRows,
    cutBefore,
  }: { where?: string; totalRows?: number; cutBefore?: TableCut | undefined } = {}): Truncation[] {
    const at = where === undefined ? {} : { where };
    const truncations: Truncation[] = [];
    if (this.widest > this.limits.maxColumns) {
      truncations.push({
        limit: 'maxColumns',
        kept: this.limits.maxColumns,
        total: this.widest,
        ...at,
      });
    }
    const total = Math.max(totalRows ?? 0, this.dataRows);
    const reason = this.cut ?? cutBefore;
    if (reason === 'maxTextChars') {
      truncations.push({ limit: 'maxTextChars', kept: this.limits.maxTextChars });
    } else if (total > this.keptRows) {
      truncations.push({
        limit: reason === 'maxCells' ? 'maxCells' : 'maxRows',
        kept: this.keptRows,
        total,
        ...at,
      });
    }
    return truncations;
  }
}
