import { parse } from 'csv-parse/sync';
import { DocumentParseError } from '../document-parse-error';
import type { IngestLimits } from '../limits';
import type { ParsedBody } from './parsed-body';
import { tableBlocks } from './table-blocks';
import { TableGrid } from './table-grid';

const DELIMITERS = [',', ';', '\t', '|'] as const;

/**
 * Picks the delimiter from the first lines: the candidate that appears the same, non-zero number
 * of times on each of them (quoted text ignored), most often. Excel writes `;` where the decimal
 * separator is a comma.
 */
function sniffDelimiter(text: string): string {
  const lines = text
    .split(/\r\n?|\n/, 20)
    .map((line) => line.replace(/"[^"]*"/g, ''))
    .filter((line) => line.trim() !== '')
    .slice(0, 5);
  let best: { delimiter: string; count: number } = { delimiter: ',', count: 0 };
  for (const delimiter of DELIMITERS) {
    const counts = lines.map((line) => line.split(delimiter).length - 1);
    const first = counts[0] ?? 0;
    if (first > best.count && counts.every((count) => count === first))
      best = { delimiter, count: first };
  }
  return best.delimiter;
}

/**
 * Parses CSV into one table (first row = header) in blocks of 50 rows with the header repeated.
 * The rows are kept under the limits as the parser reads them ({@link TableGrid}): at most
 * `maxColumns` columns and `maxRows` data rows, within `maxCells` cells and `maxTextChars`
 * characters (a first row longer than that is cut, not refused); the rest is counted but not
 * kept, and noted (in the text, `metadata.truncatedRows` and `truncations`). The delimiter (`,`
 * `;` tab `|`) is sniffed.
 *
 * @param options - The file's name (for errors), decoded text and the limits.
 * @throws {@link DocumentParseError} for malformed CSV, naming the line.
 */
export function parseCsv({
  filename,
  text,
  limits,
}: {
  filename: string;
  text: string;
  limits: Pick<IngestLimits, 'maxRows' | 'maxColumns' | 'maxCells' | 'maxTextChars'>;
}): ParsedBody {
  const grid = new TableGrid({ limits });
  try {
    parse(text, {
      delimiter: sniffDelimiter(text),
      bom: true,
      relax_column_count: true,
      relax_quotes: true,
      skip_empty_lines: true,
      // Each record goes to the grid as the parser reads it; none is collected.
      on_record: (record: string[]) => {
        if (!record.some((cell) => /\S/.test(cell))) return null;
        if (grid.full) grid.count(record.length);
        else grid.add(record);
        return null;
      },
    });
  } catch (error) {
    const line = (error as { lines?: unknown }).lines;
    throw new DocumentParseError(
      filename,
      `Cannot read "${filename}": it is not valid CSV${typeof line === 'number' ? ` (near line ${line})` : ''}.`,
      {
        cause: error,
        details: { reason: error instanceof Error ? error.message.slice(0, 200) : 'unknown' },
      },
    );
  }
  const table = tableBlocks(grid.rows, { maxRows: limits.maxRows, totalRows: grid.dataRows });
  const truncations = grid.truncations();
  return {
    sections: table.blocks.length > 0 ? [{ path: [], level: 0, blocks: table.blocks }] : [],
    ...(table.keptRows < table.totalRows
      ? { metadata: { truncatedRows: { rows: table.totalRows, keptRows: table.keptRows } } }
      : {}),
    ...(truncations.length > 0 ? { truncations } : {}),
  };
}
