/**
 * A CSV / TSV reader for previews: RFC 4180 quoting (a quoted field may hold the delimiter, a
 * doubled quote and line breaks), `\r\n` or `\n` rows. It keeps only the first rows and counts the
 * rest, so a large file never becomes a large table. Cells are plain strings: the page shows them
 * as text.
 */

/** Limits of one preview. */
export interface DelimitedOptions {
  /** `,` for CSV, a tab for TSV. */
  delimiter: string;
  /** Rows kept (the header counts as one). @default 20 */
  maxRows?: number;
  /** Columns kept per row. @default 30 */
  maxColumns?: number;
  /** Characters kept per cell (longer ones end with `…`). @default 200 */
  maxCellLength?: number;
}

/** What {@link parseDelimited} read. */
export interface DelimitedPreview {
  /** The first rows, each cut to `maxColumns` cells. */
  rows: string[][];
  /** Rows in the whole text (the header counts as one). */
  totalRows: number;
  /** The widest row's number of cells. */
  columns: number;
  /** True when rows or columns were left out. */
  truncated: boolean;
}

/** The delimiter for a media type: a tab for TSV, else a comma. */
export function delimiterFor(mediaType: string): string {
  return mediaType.toLowerCase().startsWith('text/tab-separated-values') ? '\t' : ',';
}

/**
 * Reads delimited text, keeping the first `maxRows` rows and counting all of them.
 *
 * @example
 * parseDelimited('a,b\n"1,5","say ""hi"""\n', { delimiter: ',' }).rows; // [['a','b'],['1,5','say "hi"']]
 */
export function parseDelimited(text: string, options: DelimitedOptions): DelimitedPreview {
  const { delimiter, maxRows = 20, maxColumns = 30, maxCellLength = 200 } = options;
  const rows: string[][] = [];
  let totalRows = 0;
  let columns = 0;
  let truncated = false;
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  let rowHasContent = false;
  /** True once the current cell has any character (a quote only opens a cell). */
  let cellStarted = false;
  const source = text.startsWith('\uFEFF') ? text.slice(1) : text;

  const endCell = (): void => {
    if (row.length < maxColumns) {
      row.push(cell.length > maxCellLength ? `${cell.slice(0, maxCellLength)}…` : cell);
    } else {
      truncated = true;
    }
    cell = '';
    cellStarted = false;
  };
  const endRow = (): void => {
    endCell();
    const width = row.length;
    if (width > columns) columns = width;
    totalRows += 1;
    if (rows.length < maxRows) rows.push(row);
    else truncated = true;
    row = [];
    rowHasContent = false;
  };

  for (let index = 0; index < source.length; index += 1) {
    const char = source[index] as string;
    if (quoted) {
      if (char === '"') {
        if (source[index + 1] === '"') {
          cell += '"';
          index += 1;
        } else {
          quoted = false;
        }
      } else if (rows.length < maxRows && cell.length <= maxCellLength) {
        cell += char;
      }
      continue;
    }
    if (char === '"' && !cellStarted) {
      quoted = true;
      cellStarted = true;
      rowHasContent = true;
    } else if (char === delimiter) {
      endCell();
      rowHasContent = true;
    } else if (char === '\n' || char === '\r') {
      if (char === '\r' && source[index + 1] === '\n') index += 1;
      // A blank line is no row.
      if (rowHasContent) endRow();
    } else {
      if (rows.length < maxRows && cell.length <= maxCellLength) cell += char;
      cellStarted = true;
      rowHasContent = true;
    }
  }
  if (rowHasContent) endRow();
  return { rows, totalRows, columns, truncated };
}
