import { z } from 'zod';
import {
  envVar,
  httpUrlSchema,
  llmEnv,
  loadConfig,
  portSchema,
  redisEnv,
  runtimeEnv,
  telemetryEnv,
  type ConfigOf,
  type Environment,
} from '@fleet/config';

/** Every variable the planner reads (docs/architecture.md §11). */
export const configSpec = {
  port: envVar({
    name: 'PLANNER_PORT',
    schema: portSchema.default(8082),
    description: 'Port the planner agent listens on.',
  }),
  host: envVar({
    name: 'PLANNER_HOST',
    schema: z.string().default('127.0.0.1'),
    description: 'Interface the planner binds; 0.0.0.0 in containers.',
  }),
  publicUrl: envVar({
    name: 'PLANNER_PUBLIC_URL',
    schema: httpUrlSchema.optional(),
    description:
      "Base URL other services reach the planner at, as its Agent Card states it (the card's interface is <url>/a2a).",
    defaultText: 'http://<PLANNER_HOST>:<PLANNER_PORT> (127.0.0.1 for 0.0.0.0)',
    example: 'http://planner:8082',
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
  ...llmEnv,
  ...redisEnv,
  ...telemetryEnv,
  ...runtimeEnv,
} as const;

/** The planner's typed configuration. */
export type PlannerConfig = ConfigOf<typeof configSpec>;

/** The base URL the planner's card announces: PLANNER_PUBLIC_URL, or where it listens. */
export function plannerPublicUrl(
  config: Pick<PlannerConfig, 'publicUrl' | 'host' | 'port'>,
): string {
  if (config.publicUrl !== undefined) return config.publicUrl;
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${config.port}`;
}

/** Loads the planner's configuration; the only place it reads the environment (CONTRIBUTING.md convention 15). */
export function loadPlannerConfig(environment: Environment = process.env): PlannerConfig {
  return loadConfig(configSpec, environment);
}
