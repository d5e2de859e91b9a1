/** OpenAI's error envelope, as every OpenAI SDK parses it into its typed errors. */
export interface OpenAIErrorEnvelope {
  error: { message: string; type: string; param: string | null; code: string | null };
}

/** Options for {@link openAIErrorEnvelope}. */
export interface OpenAIErrorEnvelopeOptions {
  status: number;
  /** @default a message naming the status */
  message?: string;
  /** @default derived from the status (`invalid_request_error`, `rate_limit_error`, ...) */
  type?: string;
  /** @default null */
  param?: string | null;
  /** @default derived from the status (`rate_limit_exceeded`, `invalid_api_key`, or null) */
  code?: string | null;
}

/** The error `type` OpenAI uses for an HTTP status. */
export function openAIErrorType(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

function defaultCode(status: number): string | null {
  if (status === 401) return 'invalid_api_key';
  if (status === 429) return 'rate_limit_exceeded';
  return null;
}

/**
 * Builds `{ error: { message, type, param, code } }` for an HTTP status.
 *
 * @example
 * openAIErrorEnvelope({ status: 429 }).error.type; // 'rate_limit_error'
 */
export function openAIErrorEnvelope({
  status,
  message = `Scripted error (HTTP ${status})`,
  type = openAIErrorType(status),
  param = null,
  code = defaultCode(status),
}: OpenAIErrorEnvelopeOptions): OpenAIErrorEnvelope {
  return { error: { message, type, param, code } };
}
