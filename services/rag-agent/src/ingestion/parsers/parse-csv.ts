import { parse } from 'csv-parse/sync';
import { DocumentParseError } from '../document-parse-error';
import type { IngestLimits } from '../limits';
import type { ParsedBody } from './parsed-body';
import { tableBlocks } from './table-blocks';

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
 * Parses CSV into one table (first row = header) in blocks of 50 rows with the header repeated;
 * rows past `limits.maxRows` are counted as the parser reads them but not kept, and noted (in the
 * text, `metadata.truncatedRows` and `truncations`). The delimiter (`,` `;` tab `|`) is sniffed.
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
  limits: Pick<IngestLimits, 'maxRows'>;
}): ParsedBody {
  let grid: string[][];
  let rows = 0;
  try {
    grid = parse(text, {
      delimiter: sniffDelimiter(text),
      bom: true,
      relax_column_count: true,
      relax_quotes: true,
      skip_empty_lines: true,
      // Rows with a value are counted; only the header and the first maxRows are kept.
      on_record: (record: string[]) => {
        if (!record.some((cell) => /\S/.test(cell))) return null;
        rows++;
        return rows <= limits.maxRows + 1 ? record : null;
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
  const table = tableBlocks(grid, { maxRows: limits.maxRows, totalRows: Math.max(rows - 1, 0) });
  const truncated = table.keptRows < table.totalRows;
  return {
    sections: table.blocks.length > 0 ? [{ path: [], level: 0, blocks: table.blocks }] : [],
    ...(truncated
      ? {
          metadata: { truncatedRows: { rows: table.totalRows, keptRows: table.keptRows } },
          truncations: [{ limit: 'maxRows', kept: table.keptRows, total: table.totalRows }],
        }
      : {}),
  };
}
