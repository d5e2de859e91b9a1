import { type ErrorCode, FleetError, type FleetErrorOptions } from '@fleet/errors';

/** `ErrorInfo.domain` of the errors the A2A specification defines. */
export const A2A_ERROR_DOMAIN = 'a2a-protocol.org';

/** `ErrorInfo.domain` of fleet errors that have no A2A code (their `reason` is the fleet code). */
export const FLEET_ERROR_DOMAIN = 'a2a-fleet';

/**
 * The JSON-RPC error codes of A2A v1.0 (docs/a2a.md §1): code, `ErrorInfo.reason` (undefined for the
 * plain JSON-RPC codes) and the fleet code the error class carries.
 */
export const A2A_ERROR_CODES = {
  JSON_PARSE_ERROR: { jsonRpcCode: -32700, reason: undefined, fleetCode: 'MALFORMED_JSON' },
  INVALID_REQUEST: { jsonRpcCode: -32600, reason: undefined, fleetCode: 'BAD_REQUEST' },
  METHOD_NOT_FOUND: { jsonRpcCode: -32601, reason: undefined, fleetCode: 'NOT_FOUND' },
  INVALID_PARAMS: { jsonRpcCode: -32602, reason: 'INVALID_PARAMS', fleetCode: 'VALIDATION_FAILED' },
  INTERNAL_ERROR: { jsonRpcCode: -32603, reason: undefined, fleetCode: 'INTERNAL' },
  TASK_NOT_FOUND: { jsonRpcCode: -32001, reason: 'TASK_NOT_FOUND', fleetCode: 'NOT_FOUND' },
  TASK_NOT_CANCELABLE: {
    jsonRpcCode: -32002,
    reason: 'TASK_NOT_CANCELABLE',
    fleetCode: 'CONFLICT',
  },
  PUSH_NOTIFICATION_NOT_SUPPORTED: {
    jsonRpcCode: -32003,
    reason: 'PUSH_NOTIFICATION_NOT_SUPPORTED',
    fleetCode: 'NOT_IMPLEMENTED',
  },
  UNSUPPORTED_OPERATION: {
    jsonRpcCode: -32004,
    reason: 'UNSUPPORTED_OPERATION',
    fleetCode: 'CONFLICT',
  },
  CONTENT_TYPE_NOT_SUPPORTED: {
    jsonRpcCode: -32005,
    reason: 'CONTENT_TYPE_NOT_SUPPORTED',
    fleetCode: 'UNSUPPORTED_MEDIA_TYPE',
  },
  INVALID_AGENT_RESPONSE: {
    jsonRpcCode: -32006,
    reason: 'INVALID_AGENT_RESPONSE',
    fleetCode: 'UPSTREAM_ERROR',
  },
  EXTENDED_AGENT_CARD_NOT_CONFIGURED: {
    jsonRpcCode: -32007,
    reason: 'EXTENDED_AGENT_CARD_NOT_CONFIGURED',
    fleetCode: 'NOT_IMPLEMENTED',
  },
  EXTENSION_SUPPORT_REQUIRED: {
    jsonRpcCode: -32008,
    reason: 'EXTENSION_SUPPORT_REQUIRED',
    fleetCode: 'BAD_REQUEST',
  },
  VERSION_NOT_SUPPORTED: {
    jsonRpcCode: -32009,
    reason: 'VERSION_NOT_SUPPORTED',
    fleetCode: 'BAD_REQUEST',
  },
} as const satisfies Record<
  string,
  { jsonRpcCode: number; reason: string | undefined; fleetCode: ErrorCode }
>;

/** A name from {@link A2A_ERROR_CODES}. */
export type A2AErrorName = keyof typeof A2A_ERROR_CODES;

/** Options every {@link A2AError} accepts. */
export interface A2AErrorOptions extends FleetErrorOptions {
  /** `ErrorInfo.metadata`: string pairs sent to the peer. */
  metadata?: Record<string, string>;
}

/**
 * An error with a JSON-RPC code: what the server answers and what the client throws. Every A2A
 * error of the specification has a subclass (e.g. {@link TaskNotFoundError}); a code the table
 * does not know arrives as a plain `A2AError`.
 */
export class A2AError extends FleetError {
  /** The JSON-RPC `error.code`. */
  readonly jsonRpcCode: number;
  /** The `ErrorInfo.reason` (UPPER_SNAKE), when the code has one. */
  readonly reason: string | undefined;
  /** The `ErrorInfo.metadata`. */
  readonly metadata: Record<string, string> | undefined;

  constructor(
    code: { jsonRpcCode: number; reason?: string | undefined; fleetCode: ErrorCode },
    message: string,
    options: A2AErrorOptions = {},
  ) {
    const { metadata, ...fleetOptions } = options;
    super(code.fleetCode, message, {
      retryable: code.jsonRpcCode === A2A_ERROR_CODES.INTERNAL_ERROR.jsonRpcCode,
      ...fleetOptions,
    });
    this.jsonRpcCode = code.jsonRpcCode;
    this.reason = code.reason;
    this.metadata = metadata;
  }

  /** True for any `A2AError`, even one built by another copy of this package. */
  static isA2AError(error: unknown): error is A2AError {
    return (
      FleetError.isInstance(error) &&
      typeof (error as unknown as Record<string, unknown>)['jsonRpcCode'] === 'number'
    );
  }
}

/** -32700: the body is not valid JSON (the reply carries `id: null`). */
export class JsonRpcParseError extends A2AError {
  constructor(message = 'Parse error: the body is not valid JSON.', options: A2AErrorOptions = {}) {
    super(A2A_ERROR_CODES.JSON_PARSE_ERROR, message, options);
  }
}

/** -32600: not a JSON-RPC 2.0 request. */
export class InvalidRequestError extends A2AError {
  constructor(message = 'Invalid JSON-RPC request.', options: A2AErrorOptions = {}) {
    super(A2A_ERROR_CODES.INVALID_REQUEST, message, options);
  }
}

/** -32601: the method does not exist. */
export class MethodNotFoundError extends A2AError {
  constructor(message = 'Method not found.', options: A2AErrorOptions = {}) {
    super(A2A_ERROR_CODES.METHOD_NOT_FOUND, message, options);
  }
}

/** -32602: the params are invalid (missing `messageId`, a different `contextId`, …). */
export class InvalidParamsError extends A2AError {
  constructor(message = 'Invalid params.', options: A2AErrorOptions = {}) {
    super(A2A_ERROR_CODES.INVALID_PARAMS, message, options);
  }
}

/** -32603: anything unexpected on the server. */
export class A2AInternalError extends A2AError {
  constructor(message = 'Internal error.', options: A2AErrorOptions = {}) {
    super(A2A_ERROR_CODES.INTERNAL_ERROR, message, options);
  }
}

/** -32001: no task with this id (unknown or expired). */
export class TaskNotFoundError extends A2AError {
  constructor(message = 'Task not found.', options: A2AErrorOptions = {}) {
    super(A2A_ERROR_CODES.TASK_NOT_FOUND, message, options);
  }
}

/** -32002: the task is terminal and cannot be canceled. */
export class TaskNotCancelableError extends A2AError {
  constructor(message = 'Task cannot be canceled.', options: A2AErrorOptions = {}) {
    super(A2A_ERROR_CODES.TASK_NOT_CANCELABLE, message, options);
  }
}

/** -32003: push notifications are not supported. */
export class PushNotificationNotSupportedError extends A2AError {
  constructor(message = 'Push notifications are not supported.', options: A2AErrorOptions = {}) {
    super(A2A_ERROR_CODES.PUSH_NOTIFICATION_NOT_SUPPORTED, message, options);
  }
}

/** -32004: the operation is not allowed here (message to or subscription on a terminal task, …). */
export class UnsupportedOperationError extends A2AError {
  constructor(message = 'This operation is not supported.', options: A2AErrorOptions = {}) {
    super(A2A_ERROR_CODES.UNSUPPORTED_OPERATION, message, options);
  }
}

/** -32005: a content type (request body or part media type) the agent does not take. */
export class ContentTypeNotSupportedError extends A2AError {
  constructor(message = 'Content type not supported.', options: A2AErrorOptions = {}) {
    super(A2A_ERROR_CODES.CONTENT_TYPE_NOT_SUPPORTED, message, options);
  }
}

/** -32006: the agent produced a malformed response. */
export class InvalidAgentResponseError extends A2AError {
  constructor(message = 'The agent sent an invalid response.', options: A2AErrorOptions = {}) {
    super(A2A_ERROR_CODES.INVALID_AGENT_RESPONSE, message, options);
  }
}

/** -32007: no extended agent card is configured. */
export class ExtendedAgentCardNotConfiguredError extends A2AError {
  constructor(message = 'Extended agent card not configured.', options: A2AErrorOptions = {}) {
    super(A2A_ERROR_CODES.EXTENDED_AGENT_CARD_NOT_CONFIGURED, message, options);
  }
}

/** -32008: a required extension is missing from `A2A-Extensions`. */
export class ExtensionSupportRequiredError extends A2AError {
  constructor(message = 'A required extension is not supported.', options: A2AErrorOptions = {}) {
    super(A2A_ERROR_CODES.EXTENSION_SUPPORT_REQUIRED, message, options);
  }
}

/** -32009: the `A2A-Version` header is missing or names a version other than 1.0. */
export class VersionNotSupportedError extends A2AError {
  constructor(message = 'A2A protocol version not supported.', options: A2AErrorOptions = {}) {
    super(A2A_ERROR_CODES.VERSION_NOT_SUPPORTED, message, options);
  }
}

type A2AErrorFactory = (message: string, options: A2AErrorOptions) => A2AError;

/** The class of each code, for rebuilding errors on the client (CONTRIBUTING.md convention 13). */
export const A2A_ERROR_FACTORIES: Readonly<Record<A2AErrorName, A2AErrorFactory>> = {
  JSON_PARSE_ERROR: (message, options) => new JsonRpcParseError(message, options),
  INVALID_REQUEST: (message, options) => new InvalidRequestError(message, options),
  METHOD_NOT_FOUND: (message, options) => new MethodNotFoundError(message, options),
  INVALID_PARAMS: (message, options) => new InvalidParamsError(message, options),
  INTERNAL_ERROR: (message, options) => new A2AInternalError(message, options),
  TASK_NOT_FOUND: (message, options) => new TaskNotFoundError(message, options),
  TASK_NOT_CANCELABLE: (message, options) => new TaskNotCancelableError(message, options),
  PUSH_NOTIFICATION_NOT_SUPPORTED: (message, options) =>
    new PushNotificationNotSupportedError(message, options),
  UNSUPPORTED_OPERATION: (message, options) => new UnsupportedOperationError(message, options),
  CONTENT_TYPE_NOT_SUPPORTED: (message, options) =>
    new ContentTypeNotSupportedError(message, options),
  INVALID_AGENT_RESPONSE: (message, options) => new InvalidAgentResponseError(message, options),
  EXTENDED_AGENT_CARD_NOT_CONFIGURED: (message, options) =>
    new ExtendedAgentCardNotConfiguredError(message, options),
  EXTENSION_SUPPORT_REQUIRED: (message, options) =>
    new ExtensionSupportRequiredError(message, options),
  VERSION_NOT_SUPPORTED: (message, options) => new VersionNotSupportedError(message, options),
};
