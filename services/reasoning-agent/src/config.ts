import { z } from 'zod';
import {
  a2aServerEnv,
  envVar,
  llmEnv,
  loadConfig,
  positiveIntSchema,
  redisEnv,
  runtimeEnv,
  telemetryEnv,
  type ConfigOf,
  type Environment,
  type LoadConfigOptions,
} from '@fleet/config';
import { isTimeZone } from './tools/current-time';

/** Every variable the reasoning agent reads (docs/architecture.md §1, §8, §10, §11). */
export const configSpec = {
  ...a2aServerEnv({
    prefix: 'REASONING_AGENT',
    label: 'the reasoning agent',
    defaultPort: 8087,
    deprecatedPublicUrlNames: ['REASONING_AGENT_URL'],
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
 * Loads the reasoning agent's configuration; the only place it reads the environment (CONTRIBUTING.md
 * convention 15).
 *
 * @example
 * const config = loadReasoningAgentConfig({ FLEET_INTERNAL_TOKEN: 'x'.repeat(16) });
 */
export function loadReasoningAgentConfig(
  environment: Environment = process.env,
  options: LoadConfigOptions = {},
): ReasoningAgentConfig {
  return loadConfig(configSpec, environment, options);
}
