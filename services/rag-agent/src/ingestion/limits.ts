/**
 * What one document may cost the RAG agent to read. Limits a document may exceed and still be
 * useful (rows, pages, characters, chunks) cut it: the first part is indexed and the result says
 * so (`truncated`, `warnings`). Limits that only a hostile or broken file exceeds (how far it
 * unpacks, how deep it nests) refuse it. docs/rag.md explains each choice.
 */
export interface IngestLimits {
  /** Data rows kept per CSV table or XLSX sheet (RAG_MAX_ROWS); more are cut. */
  maxRows: number;
  /** Columns kept per CSV table or XLSX sheet (RAG_MAX_COLUMNS); more are cut. */
  maxColumns: number;
  /**
   * Table cells read per document, CSV and XLSX, empty cells of padded rows included
   * (RAG_MAX_CELLS); the rows past it are cut.
   */
  maxCells: number;
  /** PDF pages read (RAG_MAX_PDF_PAGES); more are cut. */
  maxPdfPages: number;
  /** Characters of text kept per document (RAG_MAX_TEXT_CHARS); more are cut. */
  maxTextChars: number;
  /** Searchable chunks stored per document (RAG_MAX_CHUNKS); more are cut. */
  maxChunks: number;
  /** Bytes a DOCX/XLSX may unpack to, or a PDF's compressed streams inflate to (RAG_MAX_UNPACKED_BYTES); more is refused. */
  maxUnpackedBytes: number;
  /** Bytes one archive entry may unpack to (RAG_MAX_UNPACKED_ENTRY_BYTES); more is refused. */
  maxEntryBytes: number;
  /** Entries an archive may hold (RAG_MAX_ARCHIVE_ENTRIES); more is refused. */
  maxArchiveEntries: number;
  /**
   * Unpacked to compressed size of one entry or stream (RAG_MAX_COMPRESSION_RATIO), checked once
   * it unpacks to more than {@link RATIO_GRACE_BYTES}; more is refused.
   */
  maxCompressionRatio: number;
  /** Element, list or emphasis nesting (RAG_MAX_NESTING_DEPTH); deeper is refused. */
  maxNestingDepth: number;
}

/** The defaults (the configuration's defaults, docs/configuration.md). */
export const DEFAULT_INGEST_LIMITS: Readonly<IngestLimits> = {
  maxRows: 5000,
  maxColumns: 256,
  maxCells: 500_000,
  maxPdfPages: 1000,
  maxTextChars: 5_000_000,
  maxChunks: 5000,
  maxUnpackedBytes: 100 * 1024 * 1024,
  maxEntryBytes: 50 * 1024 * 1024,
  maxArchiveEntries: 2000,
  maxCompressionRatio: 200,
  maxNestingDepth: 100,
};

/** An entry or stream may unpack to this much whatever its compression ratio. */
export const RATIO_GRACE_BYTES = 1024 * 1024;

/** The environment variable of each limit, as messages and error details name it. */
export const LIMIT_NAMES = {
  maxRows: 'RAG_MAX_ROWS',
  maxColumns: 'RAG_MAX_COLUMNS',
  maxCells: 'RAG_MAX_CELLS',
  maxPdfPages: 'RAG_MAX_PDF_PAGES',
  maxTextChars: 'RAG_MAX_TEXT_CHARS',
  maxChunks: 'RAG_MAX_CHUNKS',
  maxUnpackedBytes: 'RAG_MAX_UNPACKED_BYTES',
  maxEntryBytes: 'RAG_MAX_UNPACKED_ENTRY_BYTES',
  maxArchiveEntries: 'RAG_MAX_ARCHIVE_ENTRIES',
  maxCompressionRatio: 'RAG_MAX_COMPRESSION_RATIO',
  maxNestingDepth: 'RAG_MAX_NESTING_DEPTH',
} as const satisfies Record<keyof IngestLimits, string>;

/**
 * The budgets of one document's reading job (parse and chunk, on a worker thread of the parse
 * pool) and their environment variables: the job is stopped past them.
 */
export const PARSE_BUDGET_NAMES = {
  parseTimeoutMs: 'RAG_PARSE_TIMEOUT_MS',
  parseMemoryMb: 'RAG_PARSE_MEMORY_MB',
} as const;

/** A budget of {@link PARSE_BUDGET_NAMES}. */
export type ParseBudget = keyof typeof PARSE_BUDGET_NAMES;

/** The limits in effect: the defaults, overridden by what is given. */
export function resolveLimits(limits: Partial<IngestLimits> | undefined): IngestLimits {
  const resolved = { ...DEFAULT_INGEST_LIMITS };
  for (const [key, value] of Object.entries(limits ?? {}) as [keyof IngestLimits, unknown][]) {
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
      throw new TypeError(`${key} must be a positive integer, got ${JSON.stringify(value)}`);
    }
    resolved[key] = value;
  }
  return resolved;
}

/** A part of a document left out because it exceeded a limit. */
export interface Truncation {
  limit: 'maxRows' | 'maxColumns' | 'maxCells' | 'maxPdfPages' | 'maxTextChars' | 'maxChunks';
  /** How many units were kept. */
  kept: number;
  /** How many there were, when known. */
  total?: number;
  /** Where, e.g. `sheet "Orders"`. */
  where?: string;
}

const UNITS: Readonly<Record<Truncation['limit'], string>> = {
  maxRows: 'rows',
  maxColumns: 'columns',
  maxCells: 'rows',
  maxPdfPages: 'pages',
  maxTextChars: 'characters of text',
  maxChunks: 'chunks',
};

/**
 * The warning a truncation gives, e.g. `only the first 5000 of 200000 rows were indexed
 * (RAG_MAX_ROWS)`.
 */
export function truncationWarning({ limit, kept, total, where }: Truncation): string {
  const of = total === undefined ? '' : ` of ${total}`;
  const location = where === undefined ? '' : ` of ${where}`;
  return `only the first ${kept}${of} ${UNITS[limit]}${location} were indexed (${LIMIT_NAMES[limit]})`;
}
