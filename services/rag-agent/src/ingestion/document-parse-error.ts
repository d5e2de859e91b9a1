import { ValidationError, type FleetErrorOptions } from '@fleet/errors';

/**
 * A file of a supported type that cannot be indexed: damaged, truncated, password-protected, or
 * without any text. 400, `VALIDATION_FAILED`; the message names the file and says why. The
 * library error, if any, is the `cause` (for logs only).
 */
export class DocumentParseError extends ValidationError {
  /** The file's name as given. */
  readonly filename: string;

  constructor(filename: string, message: string, options: FleetErrorOptions = {}) {
    super(message, { ...options, details: { filename, ...options.details } });
    this.filename = filename;
  }
}
