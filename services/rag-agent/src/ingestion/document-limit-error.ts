import { PayloadTooLargeError, type FleetErrorOptions } from '@fleet/errors';
import { LIMIT_NAMES, PARSE_BUDGET_NAMES, type IngestLimits, type ParseBudget } from './limits';

/** Options for {@link DocumentLimitError}. */
export interface DocumentLimitErrorOptions extends FleetErrorOptions {
  filename: string;
  /** The limit crossed: an ingestion limit, or a budget of the reading job. */
  limit: keyof IngestLimits | ParseBudget;
  /** Its value. */
  max: number;
  /** The archive entry or PDF stream that crossed it, if one did. */
  entry?: string | undefined;
}

/** The environment variable of a limit or budget. */
function variableOf(limit: keyof IngestLimits | ParseBudget): string {
  return limit === 'parseTimeoutMs' || limit === 'parseMemoryMb'
    ? PARSE_BUDGET_NAMES[limit]
    : LIMIT_NAMES[limit];
}

/**
 * A file that would unpack to more than the RAG agent reads: a DOCX or XLSX whose entries unpack
 * to more than RAG_MAX_UNPACKED_BYTES in all or RAG_MAX_UNPACKED_ENTRY_BYTES in one, with more
 * than RAG_MAX_ARCHIVE_ENTRIES entries, or compressed more than RAG_MAX_COMPRESSION_RATIO to 1
 * (zip bombs are); a PDF whose compressed streams do the same; a file whose reading ran past its
 * time (RAG_PARSE_TIMEOUT_MS) or memory (RAG_PARSE_MEMORY_MB). 413, `PAYLOAD_TOO_LARGE`; the
 * details name the limit (`limit`: the environment variable, `max`: its value) and the entry.
 */
export class DocumentLimitError extends PayloadTooLargeError {
  /** The file's name as given. */
  readonly filename: string;
  /** The limit crossed (its environment variable). */
  readonly limit: string;

  constructor(
    message: string,
    { filename, limit, max, entry, details, ...options }: DocumentLimitErrorOptions,
  ) {
    super(message, {
      ...options,
      details: {
        filename,
        limit: variableOf(limit),
        max,
        ...(entry === undefined ? {} : { entry }),
        ...details,
      },
    });
    this.filename = filename;
    this.limit = variableOf(limit);
  }
}
