/**
 * A step's tabular result as a Markdown table in the answer: tables found in a step's data part
 * ({@link tableFromData}) or read from a CSV/TSV file part ({@link tableFromFilePart}), rendered
 * cut to a stated number of rows and columns ({@link renderTable}).
 */

/** A table a step returned, as much of it as the orchestrator keeps. */
export interface StepTable {
  columns: string[];
  /** The first rows (each as many cells as `columns`, or fewer). */
  rows: unknown[][];
  /** How many data rows the table has (counted in the part of the file that was read). */
  totalRows: number;
  /** True when the file was longer than what was read: `totalRows` is a lower bound. */
  totalIsAtLeast?: boolean | undefined;
  /** How many columns the table has, when `columns` keeps only the first. @default columns.length */
  totalColumns?: number | undefined;
  /** The file that holds the whole table, when it came from a file part. */
  file?: string | undefined;
}

/** The most rows the answer shows per table, whatever ORCHESTRATOR_ANSWER_TABLE_ROWS says. */
export const MAX_TABLE_ROWS = 200;
/** The most columns the answer shows per table. */
export const MAX_TABLE_COLUMNS = 12;
/** The most characters of one cell the answer shows. */
export const MAX_CELL_CHARS = 200;
/** The most bytes of a CSV/TSV file that are parsed. */
export const MAX_CSV_BYTES = 1024 * 1024;
/** The most tables of one step the answer shows. */
const MAX_TABLES_PER_STEP = 5;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isCell(value: unknown): boolean {
  return value === null || ['string', 'number', 'boolean'].includes(typeof value);
}

function columnsRows(value: Record<string, unknown>): StepTable | undefined {
  const { columns, rows } = value;
  if (!Array.isArray(columns) || columns.length === 0) return undefined;
  if (!columns.every((column) => typeof column === 'string')) return undefined;
  if (!Array.isArray(rows) || !rows.every((row) => Array.isArray(row))) return undefined;
  return {
    columns: columns,
    rows: (rows as unknown[][]).slice(0, MAX_TABLE_ROWS),
    totalRows: rows.length,
  };
}

function flatObjects(value: unknown[]): StepTable | undefined {
  if (value.length === 0 || !value.every(isRecord)) return undefined;
  const first = value[0] as Record<string, unknown>;
  const columns = Object.keys(first);
  if (columns.length === 0) return undefined;
  const same = value.every((row) => {
    const keys = Object.keys(row);
    return (
      keys.length === columns.length &&
      columns.every((column) => column in row && isCell(row[column]))
    );
  });
  if (!same) return undefined;
  return {
    columns,
    rows: value.slice(0, MAX_TABLE_ROWS).map((row) => columns.map((column) => row[column])),
    totalRows: value.length,
  };
}

/**
 * The table in a step's data part, if it has one: `{ columns: string[], rows: unknown[][] }`,
 * the same under `table`, or an array of flat objects that all have the same keys (the columns).
 * Anything else is not a table (undefined).
 *
 * @example
 * tableFromData({ columns: ['month', 'sales'], rows: [['Jan', 10]] });
 * // { columns: ['month', 'sales'], rows: [['Jan', 10]], totalRows: 1 }
 */
export function tableFromData(data: unknown): StepTable | undefined {
  if (Array.isArray(data)) return flatObjects(data);
  if (!isRecord(data)) return undefined;
  if (isRecord(data['table'])) return columnsRows(data['table']);
  return columnsRows(data);
}

/**
 * Parses delimited text (CSV, TSV): fields in double quotes may hold the delimiter, line breaks
 * and doubled quotes (`""`). The first record is the header. Keeps the first `keepRows` data rows
 * and counts them all; blank lines are skipped.
 *
 * @example
 * parseDelimited('a,b\n"x, y","say ""hi"""\n', ',', 10);
 * // { columns: ['a', 'b'], rows: [['x, y', 'say "hi"']], totalRows: 1 }
 */
export function parseDelimited(
  text: string,
  delimiter: ',' | '\t',
  keepRows: number,
): StepTable | undefined {
  let columns: string[] | undefined;
  const rows: unknown[][] = [];
  let totalRows = 0;
  let record: string[] = [];
  let field = '';
  let quoted = false;
  let fieldStarted = false;
  const endRecord = (): void => {
    record.push(field);
    field = '';
    fieldStarted = false;
    const blank = record.length === 1 && record[0] === '';
    if (!blank) {
      if (columns === undefined) columns = record;
      else {
        totalRows += 1;
        if (rows.length < keepRows) rows.push(record);
      }
    }
    record = [];
  };
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index];
    if (quoted) {
      if (char === '"') {
        if (text[index + 1] === '"') {
          field += '"';
          index += 1;
        } else quoted = false;
      } else field += char;
      continue;
    }
    if (char === '"' && !fieldStarted) {
      quoted = true;
      fieldStarted = true;
    } else if (char === delimiter) {
      record.push(field);
      field = '';
      fieldStarted = false;
    } else if (char === '\n' || char === '\r') {
      if (char === '\r' && text[index + 1] === '\n') index += 1;
      endRecord();
    } else {
      field += char;
      fieldStarted = true;
    }
  }
  if (field !== '' || record.length > 0) endRecord();
  if (columns === undefined) return undefined;
  return { columns, rows, totalRows };
}

/** A file part as the orchestrator reads it back (A2A `Part` with `raw`). */
export interface FilePartLike {
  raw?: string | undefined;
  mediaType?: string | undefined;
  filename?: string | undefined;
}

/**
 * The table in a CSV or TSV file part (`mediaType` text/csv or text/tab-separated-values, or a
 * `.csv`/`.tsv` filename; `raw` base64 bytes): only the first {@link MAX_CSV_BYTES} are parsed
 * (then the row count is a lower bound, and the last, possibly partial, line is dropped), at most
 * `keepRows` rows kept. Undefined for any other part.
 *
 * @example
 * tableFromFilePart({ raw: Buffer.from('a,b\n1,2\n').toString('base64'), filename: 'x.csv' }, 20);
 * // { columns: ['a', 'b'], rows: [['1', '2']], totalRows: 1, file: 'x.csv' }
 */
export function tableFromFilePart(part: FilePartLike, keepRows: number): StepTable | undefined {
  if (typeof part.raw !== 'string' || part.raw === '') return undefined;
  const media = (part.mediaType ?? '').toLowerCase().split(';')[0]?.trim() ?? '';
  const name = (part.filename ?? '').toLowerCase();
  const tsv = media === 'text/tab-separated-values' || name.endsWith('.tsv');
  const csv = media === 'text/csv' || name.endsWith('.csv');
  if (!tsv && !csv) return undefined;
  // Four base64 characters are three bytes: decode no more than the bytes that are parsed.
  const base64Limit = Math.ceil(MAX_CSV_BYTES / 3) * 4;
  const bytes = Buffer.from(part.raw.slice(0, base64Limit), 'base64');
  const cut = bytes.length > MAX_CSV_BYTES || part.raw.length > base64Limit;
  let text = bytes.subarray(0, MAX_CSV_BYTES).toString('utf8');
  if (cut) text = text.slice(0, Math.max(0, text.lastIndexOf('\n')));
  const table = parseDelimited(text.replace(/^\uFEFF/, ''), tsv ? '\t' : ',', keepRows);
  if (table === undefined) return undefined;
  // Kept with the step until the answer is written: no more columns than it can show.
  const wide = table.columns.length > MAX_TABLE_COLUMNS;
  return {
    columns: table.columns.slice(0, MAX_TABLE_COLUMNS),
    rows: table.rows.map((row) => row.slice(0, MAX_TABLE_COLUMNS)),
    totalRows: table.totalRows,
    ...(wide ? { totalColumns: table.columns.length } : {}),
    ...(cut ? { totalIsAtLeast: true } : {}),
    ...(part.filename === undefined || part.filename === '' ? {} : { file: part.filename }),
  };
}

/**
 * The tables of one step, at most five: its data part's, then its CSV/TSV files'.
 *
 * @example
 * stepTables({ data: { columns: ['a'], rows: [[1]] } }); // [{ columns: ['a'], rows: [[1]], totalRows: 1 }]
 */
export function stepTables(step: {
  data?: unknown;
  tables?: readonly StepTable[] | undefined;
}): StepTable[] {
  const fromData = tableFromData(step.data);
  return [...(fromData === undefined ? [] : [fromData]), ...(step.tables ?? [])].slice(
    0,
    MAX_TABLES_PER_STEP,
  );
}

function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text =
    typeof value === 'string'
      ? value
      : typeof value === 'number' || typeof value === 'boolean'
        ? String(value)
        : JSON.stringify(value);
  const flat = text.replace(/\r\n|\r|\n/g, ' ').trim();
  const cut = flat.length <= MAX_CELL_CHARS ? flat : `${flat.slice(0, MAX_CELL_CHARS)}…`;
  return cut.replace(/\\/g, '\\\\').replace(/\|/g, '\\|');
}

const count = (value: number): string => value.toLocaleString('en-US');

/**
 * The table in Markdown: at most `maxRows` rows (capped at {@link MAX_TABLE_ROWS}) and
 * {@link MAX_TABLE_COLUMNS} columns, each cell on one line, pipes escaped, cut to
 * {@link MAX_CELL_CHARS} characters. Under a cut table a line says how much is shown and, for a
 * file, which file holds the rest.
 *
 * @example
 * renderTable({ columns: ['a'], rows: [['1'], ['2']], totalRows: 2 }, 1);
 * // '| a |\n| --- |\n| 1 |\n\nfirst 1 of 2 rows'
 */
export function renderTable(table: StepTable, maxRows: number): string {
  const limit = Math.max(1, Math.min(Math.floor(maxRows), MAX_TABLE_ROWS));
  const columns = table.columns.slice(0, MAX_TABLE_COLUMNS);
  const rows = table.rows.slice(0, limit);
  const line = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;
  const lines = [
    line(columns.map(cellText)),
    line(columns.map(() => '---')),
    ...rows.map((row) => line(columns.map((_, index) => cellText(row[index])))),
  ];
  const notes: string[] = [];
  const shown = rows.length;
  if (shown < table.totalRows || table.totalIsAtLeast === true) {
    notes.push(
      `first ${count(shown)} of ${table.totalIsAtLeast === true ? 'more than ' : ''}${count(table.totalRows)} rows`,
    );
  }
  const totalColumns = Math.max(table.totalColumns ?? 0, table.columns.length);
  if (totalColumns > columns.length) {
    notes.push(`first ${columns.length} of ${count(totalColumns)} columns`);
  }
  if (notes.length === 0) return lines.join('\n');
  const rest = table.file === undefined ? '' : `; the full table is in ${table.file}`;
  return `${lines.join('\n')}\n\n${notes.join(', ')}${rest}`;
}
