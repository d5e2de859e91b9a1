import { UnsupportedMediaTypeError, type FleetErrorOptions } from '@fleet/errors';

/**
 * A file the RAG agent cannot index: an unknown extension, or content that is not what its name
 * says (`report.pdf` holding plain text). 415, `UNSUPPORTED_MEDIA_TYPE`; the message names the
 * file and the supported types.
 */
export class UnsupportedDocumentError extends UnsupportedMediaTypeError {
  /** The file's name as given. */
  readonly filename: string;

  constructor(filename: string, message: string, options: FleetErrorOptions = {}) {
    super(message, { ...options, details: { filename, ...options.details } });
    this.filename = filename;
  }
}
