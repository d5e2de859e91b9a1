import OpenAI from 'openai';
import { ServiceUnavailableError } from '@fleet/errors';
import type { Upstream } from './resolve-upstream';

/** Options for {@link createLlmClient}. */
export interface CreateLlmClientOptions {
  upstream: Upstream;
  /** Per-request timeout. @default 120000 */
  timeoutMs?: number;
  /** Retries on 408/409/429/5xx and connection errors. @default 2 */
  maxRetries?: number;
}

/**
 * Builds the OpenAI SDK client for the configured upstream. Every service gets its LLM client here
 * and nowhere else.
 *
 * @throws ServiceUnavailableError in offline mode, with the hint on how to configure an upstream.
 * @example
 * const llm = createLlmClient({ upstream: resolveUpstream({ apiKey, baseURL }) });
 */
export function createLlmClient({
  upstream,
  timeoutMs = 120_000,
  maxRetries = 2,
}: CreateLlmClientOptions): OpenAI {
  if (upstream.offline) throw new ServiceUnavailableError(upstream.reason);
  return new OpenAI({
    baseURL: upstream.baseURL,
    // The SDK insists on a key; keyless local servers ignore whatever is sent.
    apiKey: upstream.apiKey ?? 'no-key',
    timeout: timeoutMs,
    maxRetries,
  });
}
