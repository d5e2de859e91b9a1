import {
  FleetError,
  type FleetErrorOptions,
  PayloadTooLargeError,
  ServiceUnavailableError,
  UpstreamTimeoutError,
} from '@fleet/errors';

/** A tool call that did not finish within its time-out; the server was sent `notifications/cancelled`. */
export class McpTimeoutError extends UpstreamTimeoutError {
  constructor(message: string, options: FleetErrorOptions = {}) {
    super(message, options);
  }
}

/**
 * A tool call the server refused at the protocol level (unknown tool, bad arguments), or a tool that
 * is not allowed by the server's `allowTools`/`denyTools`. A result with `isError: true` is not
 * this: it is returned, for the model to read and correct.
 */
export class McpToolError extends FleetError {
  constructor(message: string, options: FleetErrorOptions = {}) {
    super('UPSTREAM_ERROR', message, { retryable: false, ...options });
  }
}

/** A result (or a message) heavier than the connection's `maxResultBytes`; nothing beyond it was kept. */
export class McpResultTooLargeError extends PayloadTooLargeError {
  constructor(message: string, options: FleetErrorOptions = {}) {
    super(message, { retryable: false, ...options });
  }
}

/**
 * A tool result whose `structuredContent` breaks the `outputSchema` the server listed for the tool
 * (or is missing although the tool declares one). The result is not returned: it is not what the
 * tool promised.
 */
export class McpOutputSchemaError extends FleetError {
  constructor(message: string, options: FleetErrorOptions = {}) {
    super('UPSTREAM_ERROR', message, { retryable: false, ...options });
  }
}

/** A server that broke the protocol: wrote something on stdout that is not JSON-RPC. */
export class McpProtocolError extends FleetError {
  constructor(message: string, options: FleetErrorOptions = {}) {
    super('UPSTREAM_ERROR', message, { retryable: true, ...options });
  }
}

/** A server that could not be started or reached, or crashed and waits out its restart back-off. */
export class McpServerUnavailableError extends ServiceUnavailableError {
  constructor(message: string, options: FleetErrorOptions = {}) {
    super(message, { retryable: true, ...options });
  }
}
