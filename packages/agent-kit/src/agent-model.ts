import type OpenAI from 'openai';
import { createLlmClient, resolveUpstream, type Upstream } from '@fleet/llm';

/** The LLM settings every agent reads (`llmEnv` of `@fleet/config`). */
export interface AgentModelConfig {
  openaiApiKey?: string | undefined;
  openaiBaseUrl?: string | undefined;
  llmModel: string;
  llmTimeoutMs: number;
}

/** The upstream an agent answers with, or offline mode. */
export interface AgentModel {
  upstream: Upstream;
  /** Absent offline. */
  client: OpenAI | undefined;
  /** The client and the model to call, absent offline: what agents' answerers take. */
  llm: { client: OpenAI; model: string } | undefined;
}

/**
 * Resolves the upstream from the configuration and builds its client; offline (no
 * OPENAI_BASE_URL, no OPENAI_API_KEY) there is none and agents use their offline fallbacks.
 *
 * @example
 * const { upstream, llm } = agentModel(config);
 */
export function agentModel(config: AgentModelConfig): AgentModel {
  const upstream = resolveUpstream({ apiKey: config.openaiApiKey, baseURL: config.openaiBaseUrl });
  const client = upstream.offline
    ? undefined
    : createLlmClient({ upstream, timeoutMs: config.llmTimeoutMs });
  return { upstream, client, llm: client ? { client, model: config.llmModel } : undefined };
}

/** The fields a "listening" log line shows about the upstream. */
export function describeUpstream(
  model: AgentModel,
  llmModel: string,
): { upstream: string; model?: string } {
  return model.upstream.offline
    ? { upstream: 'offline' }
    : { upstream: model.upstream.baseURL, model: llmModel };
}
