import { z } from 'zod';
import {
  AbortError,
  FleetError,
  fromErrorBody,
  NotFoundError,
  safeParseJson,
  UpstreamTimeoutError,
} from '@fleet/errors';
import { InvalidAgentResponseError } from '../errors/a2a-errors';
import { type AgentCard, agentCardSchema } from '../schemas/agent-card';
import { A2A_VERSION } from '../schemas/core';
import { connectionError, withRetries, withRetryAfter } from './internal/retry';

/** Options for {@link discoverAgentCard}. */
export interface DiscoverAgentCardOptions {
  /** Sent as `Authorization: Bearer <token>` (cards are public in the fleet; some peers are not). */
  token?: string | undefined;
  /** Per attempt. @default 10000 */
  timeoutMs?: number | undefined;
  signal?: AbortSignal | undefined;
  /** @default 2 */
  maxRetries?: number | undefined;
  /** @default the global fetch */
  fetch?: typeof fetch | undefined;
}

/** The card paths, current first, then the one v0.2 servers and ADK still serve (docs/a2a.md §2, §7.2). */
const CARD_PATHS = ['.well-known/agent-card.json', '.well-known/agent.json'] as const;

function headersRecord(headers: Headers): Record<string, string> {
  const record: Record<string, string> = {};
  headers.forEach((value, key) => {
    record[key] = value;
  });
  return record;
}

async function fetchCard(
  url: string,
  {
    token,
    timeoutMs,
    signal,
    fetchImpl,
  }: {
    token: string | undefined;
    timeoutMs: number;
    signal: AbortSignal | undefined;
    fetchImpl: typeof fetch;
  },
): Promise<AgentCard> {
  const timeout = AbortSignal.timeout(timeoutMs);
  const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
  let response: Response;
  let text: string;
  try {
    response = await fetchImpl(url, {
      headers: {
        accept: 'application/json',
        'a2a-version': A2A_VERSION,
        ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      },
      signal: combined,
    });
    text = await response.text();
  } catch (error) {
    if (signal?.aborted) throw new AbortError(undefined, { cause: error });
    if (timeout.aborted) {
      throw new UpstreamTimeoutError(`The agent card at ${url} did not arrive in time.`, {
        cause: error,
      });
    }
    throw connectionError(error, url);
  }
  const parsed = safeParseJson({ text, schema: z.unknown(), subject: `The agent card at ${url}` });
  if (!response.ok) {
    throw withRetryAfter(
      fromErrorBody(
        response.status,
        parsed.success ? parsed.value : text,
        headersRecord(response.headers),
      ),
      response.headers,
    );
  }
  if (!parsed.success) {
    throw new InvalidAgentResponseError(`The agent card at ${url} is not JSON.`, {
      cause: parsed.error,
    });
  }
  const card = agentCardSchema.safeParse(parsed.value);
  if (!card.success) {
    throw new InvalidAgentResponseError(`The agent card at ${url} is not a valid A2A card.`, {
      cause: card.error,
      details: { issues: card.error.issues.map((issue) => issue.message) },
    });
  }
  return card.data;
}

/**
 * Fetches and validates an agent's card: `<baseUrl>/.well-known/agent-card.json`, falling back to
 * the legacy `agent.json` when that is missing (404). Sends `A2A-Version: 1.0` and the bearer token;
 * retries as CONTRIBUTING.md convention 14 says. A `baseUrl` ending in `.json` is taken as the card's URL.
 *
 * @example
 * const card = await discoverAgentCard('http://rag-agent:8083', { token: config.internalToken });
 * const client = new A2AClient({ card, token: config.internalToken });
 */
export async function discoverAgentCard(
  baseUrl: string,
  {
    token,
    timeoutMs = 10_000,
    signal,
    maxRetries = 2,
    fetch: fetchImpl = globalThis.fetch,
  }: DiscoverAgentCardOptions = {},
): Promise<AgentCard> {
  const urls = baseUrl.endsWith('.json')
    ? [baseUrl]
    : CARD_PATHS.map((path) => `${baseUrl.replace(/\/+$/, '')}/${path}`);
  let lastError: unknown;
  for (const url of urls) {
    try {
      return await withRetries(() => fetchCard(url, { token, timeoutMs, signal, fetchImpl }), {
        maxRetries,
        idempotent: true,
        signal,
      });
    } catch (error) {
      if (!(
        error instanceof NotFoundError ||
        (FleetError.isInstance(error) && error.status === 404)
      )) {
        throw error;
      }
      lastError = error;
    }
  }
  throw lastError instanceof Error ? lastError : new NotFoundError(`No agent card at ${baseUrl}.`);
}
