import { PayloadTooLargeError, type FleetErrorOptions } from '@fleet/errors';
import { LIMIT_NAMES, type IngestLimits } from './limits';

/** Options for {@link DocumentLimitError}. */
export interface DocumentLimitErrorOptions extends FleetErrorOptions {
  filename: string;
  /** The limit crossed. */
  limit: keyof IngestLimits;
  /** Its value. */
  max: number;
  /** The archive entry or PDF stream that crossed it, if one did. */
  entry?: string | undefined;
}

/**
 * A file that would unpack to more than the RAG agent reads: a DOCX or XLSX whose entries unpack
 * to more than RAG_MAX_UNPACKED_BYTES in all or RAG_MAX_UNPACKED_ENTRY_BYTES in one, with more
 * than RAG_MAX_ARCHIVE_ENTRIES entries, or compressed more than RAG_MAX_COMPRESSION_RATIO to 1
 * (zip bombs are); a PDF whose compressed streams do the same. 413, `PAYLOAD_TOO_LARGE`; the
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
        limit: LIMIT_NAMES[limit],
        max,
        ...(entry === undefined ? {} : { entry }),
        ...details,
      },
    });
    this.filename = filename;
    this.limit = LIMIT_NAMES[limit];
  }
}
