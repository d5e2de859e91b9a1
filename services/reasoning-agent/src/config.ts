import { z } from 'zod';
import {
  envVar,
  httpUrlSchema,
  llmEnv,
  loadConfig,
  portSchema,
  positiveIntSchema,
  redisEnv,
  runtimeEnv,
  telemetryEnv,
  type ConfigOf,
  type Environment,
} from '@fleet/config';
import { isTimeZone } from './tools/current-time';

/** Every variable the reasoning agent reads (docs/architecture.md §1, §8, §10, §11). */
export const configSpec = {
  port: envVar({
    name: 'REASONING_AGENT_PORT',
    schema: portSchema.default(8087),
    description: 'Port the reasoning agent listens on.',
  }),
  host: envVar({
    name: 'REASONING_AGENT_HOST',
    schema: z.string().default('127.0.0.1'),
    description: 'Interface the reasoning agent binds; 0.0.0.0 in containers.',
  }),
  publicUrl: envVar({
    name: 'REASONING_AGENT_URL',
    schema: httpUrlSchema.optional(),
    description:
      "Base URL other services reach the reasoning agent at, as its Agent Card states it (the card's interface is <url>/a2a).",
    defaultText: 'http://<REASONING_AGENT_HOST>:<REASONING_AGENT_PORT> (127.0.0.1 for 0.0.0.0)',
    example: 'http://reasoning-agent:8087',
  }),
  internalToken: envVar({
    name: 'FLEET_INTERNAL_TOKEN',
    schema: z.string().min(16, 'expected at least 16 characters'),
    description:
      'Bearer token every service-to-service A2A call carries; calls without it are refused. `pnpm fleet up` generates one.',
    defaultText: 'required (the local runner generates one)',
    example: 'fleet-internal-change-me-0000',
    secret: true,
  }),
  maxIterations: envVar({
    name: 'REASONING_MAX_ITERATIONS',
    schema: positiveIntSchema.max(50, 'expected at most 50').default(6),
    description:
      'Model calls one task may make (each may call tools). The last one must answer; when it cannot, the agent answers with what it has found and says the budget ran out.',
  }),
  maxTokens: envVar({
    name: 'REASONING_MAX_TOKENS',
    schema: positiveIntSchema.default(16_000),
    description:
      'Tokens (prompt + completion, as the upstream reports them) one task may spend across all its model calls. Checked before each call: once spent, the agent answers with what it has found and says the budget ran out.',
  }),
  defaultTimeZone: envVar({
    name: 'REASONING_TIME_ZONE',
    schema: z
      .string()
      .refine(isTimeZone, { error: 'expected an IANA time zone such as UTC or Europe/Berlin' })
      .default('UTC'),
    description:
      'IANA time zone the current_time tool uses when the model names none (e.g. Europe/Berlin).',
  }),
  ...llmEnv,
  ...redisEnv,
  ...telemetryEnv,
  ...runtimeEnv,
} as const;

/** The reasoning agent's typed configuration. */
export type ReasoningAgentConfig = ConfigOf<typeof configSpec>;

/**
 * The base URL the card announces: REASONING_AGENT_URL, or where the agent listens.
 *
 * @example
 * reasoningAgentPublicUrl({ host: '0.0.0.0', port: 8087, publicUrl: undefined }); // 'http://127.0.0.1:8087'
 */
export function reasoningAgentPublicUrl(
  config: Pick<ReasoningAgentConfig, 'publicUrl' | 'host' | 'port'>,
): string {
  if (config.publicUrl !== undefined) return config.publicUrl;
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${config.port}`;
}

/**
 * Loads the reasoning agent's configuration; the only place it reads the environment (CONTRIBUTING.md
 * convention 15).
 *
 * @example
 * const config = loadReasoningAgentConfig({ FLEET_INTERNAL_TOKEN: 'x'.repeat(16) });
 */
export function loadReasoningAgentConfig(
  environment: Environment = process.env,
): ReasoningAgentConfig {
  return loadConfig(configSpec, environment);
}
