import { FleetError, type FleetErrorOptions } from '@fleet/errors';

/**
 * A call of a tool that may not be repeated safely (not read-only, not idempotent) was sent, and
 * then the server went away, timed out or answered garbage: it may or may not have acted. The
 * agent does not call it again; a person must check.
 */
export class ToolOutcomeUnknownError extends FleetError {
  constructor(message: string, options: FleetErrorOptions = {}) {
    super('UPSTREAM_ERROR', message, { retryable: false, ...options });
  }
}

/** The tool answered `isError: true`: the message carries its own words. */
export class ToolReportedError extends FleetError {
  constructor(message: string, options: FleetErrorOptions = {}) {
    super('UPSTREAM_ERROR', message, { retryable: false, ...options });
  }
}

/** The tool's `structuredContent` does not fit its declared `outputSchema`. */
export class ToolOutputMismatchError extends FleetError {
  constructor(message: string, options: FleetErrorOptions = {}) {
    super('UPSTREAM_ERROR', message, { retryable: false, ...options });
  }
}
