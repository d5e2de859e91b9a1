import OpenAI from 'openai';
import {
  AbortError,
  ConnectionError,
  FleetError,
  UpstreamError,
  UpstreamTimeoutError,
  toFleetError,
} from '@fleet/errors';

interface HeaderEntries {
  entries(): IterableIterator<[string, string]>;
}

/**
 * Turns whatever an OpenAI SDK call threw into a {@link FleetError} (CONTRIBUTING.md conventions 13 and 14):
 * an HTTP error becomes {@link UpstreamError} with the upstream's status, body and request id;
 * a time-out {@link UpstreamTimeoutError}; an unreachable server {@link ConnectionError}; an aborted
 * call {@link AbortError}. FleetErrors pass through; anything else goes through `toFleetError`.
 *
 * @example
 * try { await client.chat.completions.create(body); } catch (error) { throw toLlmError(error); }
 */
export function toLlmError(error: unknown): FleetError {
  if (FleetError.isInstance(error)) return error;
  // Order matters: the timeout and abort classes extend APIConnectionError / APIError.
  if (error instanceof OpenAI.APIUserAbortError) {
    return new AbortError('The LLM call was aborted.', { cause: error });
  }
  if (error instanceof OpenAI.APIConnectionTimeoutError) {
    return new UpstreamTimeoutError('The upstream LLM did not answer in time.', { cause: error });
  }
  if (error instanceof OpenAI.APIConnectionError) {
    return new ConnectionError(`The upstream LLM could not be reached: ${error.message}`, {
      cause: error,
    });
  }
  if (error instanceof OpenAI.APIError && typeof error.status === 'number') {
    // Typed as the fetch `Headers`, which this package's lib settings leave untyped.
    const source = error.headers as unknown as HeaderEntries | undefined;
    const headers = Object.fromEntries(source?.entries() ?? []);
    return new UpstreamError(`The upstream LLM answered ${error.status}: ${error.message}`, {
      status: error.status,
      body: error.error,
      headers,
      cause: error,
      ...(error.requestID ? { requestId: error.requestID } : {}),
    });
  }
  return toFleetError(error);
}
