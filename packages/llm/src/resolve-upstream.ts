/** Where the OpenAI-compatible upstream is, or why there is none. */
export type Upstream =
  | {
      offline: false;
      /** e.g. `https://api.openai.com/v1`, without a trailing slash. */
      baseURL: string;
      /** Absent for servers that need no key (Ollama, vLLM, LM Studio). */
      apiKey: string | undefined;
    }
  | { offline: true; reason: string };

/** Options for {@link resolveUpstream}: the values of OPENAI_API_KEY and OPENAI_BASE_URL. */
export interface ResolveUpstreamOptions {
  apiKey?: string | undefined;
  baseURL?: string | undefined;
}

/** OpenAI's own API, used when only a key is given (as the OpenAI SDK does). */
export const DEFAULT_OPENAI_BASE_URL = 'https://api.openai.com/v1';

/** The sentence every offline 503 and log line uses to say how to leave offline mode. */
export const OFFLINE_HINT =
  'No upstream LLM is configured, so the fleet runs in offline mode. Set OPENAI_BASE_URL to any ' +
  'OpenAI-compatible server (and OPENAI_API_KEY if it needs one), for example ' +
  '`OPENAI_BASE_URL=http://127.0.0.1:11434/v1 pnpm fleet up`, or OPENAI_API_KEY alone for OpenAI.';

/**
 * Decides between an upstream and offline mode the way the OpenAI SDK reads its settings
 * (docs/architecture.md §8): a base URL alone is enough (local servers need no key), a key alone means
 * OpenAI, neither means offline.
 *
 * @example
 * const upstream = resolveUpstream({ apiKey: config.openaiApiKey, baseURL: config.openaiBaseUrl });
 */
export function resolveUpstream({ apiKey, baseURL }: ResolveUpstreamOptions): Upstream {
  const key = apiKey?.trim() || undefined;
  const url = baseURL?.trim().replace(/\/+$/, '') || undefined;
  if (url === undefined && key === undefined) return { offline: true, reason: OFFLINE_HINT };
  return { offline: false, baseURL: url ?? DEFAULT_OPENAI_BASE_URL, apiKey: key };
}
