/**
 * The runner's configuration. This is the one module of the runner that reads `process.env`
 * (CONTRIBUTING.md convention 15); everything else receives a {@link RunnerConfig}.
 */
import path from 'node:path';
import { z } from 'zod';
import {
  envVar,
  llmEnv,
  loadConfig,
  portSchema,
  redisUrlSchema,
  type ConfigSpec,
  type Environment,
  type EnvVar,
} from '@fleet/config';
import type { ServiceDefinition } from './services';

/** The runner's own variables, plus the shared ones it needs to explain the fleet it starts. */
export const runnerConfigSpec = {
  root: envVar({
    name: 'FLEET_ROOT',
    schema: z.string().optional(),
    description:
      'Repository root the runner works in: services are found under it and state lives in its .fleet/ directory.',
    defaultText: 'the repository that holds the runner',
  }),
  redisUrl: envVar({
    name: 'REDIS_URL',
    schema: redisUrlSchema.optional(),
    description:
      'Redis for the fleet. When set, `fleet up` uses it (and fails if it does not answer PING) instead of finding or starting one.',
    defaultText: 'unset: reuse FLEET_LOCAL_REDIS_URL if it answers, else start redis-server',
  }),
  localRedisUrl: envVar({
    name: 'FLEET_LOCAL_REDIS_URL',
    schema: redisUrlSchema.default('redis://127.0.0.1:6379'),
    description:
      'A local Redis `fleet up` reuses when REDIS_URL is unset and this one answers PING; otherwise it starts its own.',
  }),
  redisServerBinary: envVar({
    name: 'FLEET_REDIS_SERVER',
    schema: z.string().default('redis-server'),
    description: 'The redis-server executable `fleet up` starts when no Redis answers.',
  }),
  gatewayApiKeys: envVar({
    name: 'GATEWAY_API_KEYS',
    schema: z.string().optional(),
    description:
      'Accepted gateway keys, comma-separated key:tenant pairs. Unset: `fleet up` generates a dev key (tenant dev) and keeps it in .fleet/secrets.json.',
    defaultText: 'a generated dev key',
    secret: true,
  }),
  internalToken: envVar({
    name: 'FLEET_INTERNAL_TOKEN',
    schema: z.string().optional(),
    description: 'Bearer token between services. Unset: generated once into .fleet/secrets.json.',
    defaultText: 'generated',
    secret: true,
  }),
  databaseUrl: envVar({
    name: 'DATABASE_URL',
    schema: z.string().optional(),
    description: 'PostgreSQL with pgvector for the RAG agent; unset: the agent embeds its own.',
    defaultText: 'unset: embedded PostgreSQL',
    secret: true,
  }),
  agentUrls: envVar({
    name: 'AGENT_URLS',
    schema: z.string().optional(),
    description:
      "Agent base URLs for the orchestrator. Unset: the runner lists the fleet's agents.",
    defaultText: "the local fleet's agents",
  }),
  noColor: envVar({
    name: 'NO_COLOR',
    schema: z.string().optional(),
    description: 'Any value turns colours off (https://no-color.org).',
    defaultText: 'unset: colours on a terminal',
  }),
  openaiApiKey: llmEnv.openaiApiKey,
  openaiBaseUrl: llmEnv.openaiBaseUrl,
  llmModel: llmEnv.llmModel,
} as const satisfies ConfigSpec;

/** The listen-port variable of every service, with its default. */
function portSpec(
  services: readonly ServiceDefinition[],
): Record<string, EnvVar<z.ZodType<number>>> {
  return Object.fromEntries(
    services.map((service) => [
      service.name,
      envVar({
        name: service.portVariable,
        schema: portSchema.default(service.defaultPort),
        description: `Port the ${service.name} listens on.`,
      }),
    ]),
  );
}

/** What the runner works with. */
export interface RunnerConfig {
  /** The repository root (absolute). */
  root: string;
  /** `REDIS_URL` as the caller set it. */
  redisUrl: string | undefined;
  localRedisUrl: string;
  redisServerBinary: string;
  /** `GATEWAY_API_KEYS` as the caller set it. */
  gatewayApiKeys: string | undefined;
  /** `FLEET_INTERNAL_TOKEN` as the caller set it. */
  internalToken: string | undefined;
  databaseUrl: string | undefined;
  agentUrls: string | undefined;
  /** False when `NO_COLOR` is set. */
  color: boolean;
  openaiApiKey: string | undefined;
  openaiBaseUrl: string | undefined;
  llmModel: string;
  /** Listen port per service name. */
  ports: Record<string, number>;
  /** The caller's environment, passed through to every service (docs/architecture.md §11). */
  environment: Record<string, string>;
  /**
   * Where the command was typed: relative paths on the command line (`fleet ingest docs/`) are
   * relative to it. pnpm runs scripts from the repository root and keeps the caller's directory
   * in `INIT_CWD`.
   */
  cwd: string;
}

/** Options for {@link loadRunnerConfig}. */
export interface LoadRunnerConfigOptions {
  /** The services whose port variables to read. */
  services: readonly ServiceDefinition[];
  /** @default process.env */
  environment?: Environment;
}

/** The repository that holds this runner: `packages/runner/{src,dist}/` → three levels up. */
const DEFAULT_ROOT = path.resolve(__dirname, '..', '..', '..');

/**
 * Loads the runner's configuration. A bad variable fails once, naming every bad variable
 * (`ConfigError` from `@fleet/config`).
 *
 * @example
 * const config = loadRunnerConfig({ services: SERVICES });
 */
export function loadRunnerConfig({
  services,
  environment = process.env,
}: LoadRunnerConfigOptions): RunnerConfig {
  const ports = portSpec(services);
  // One pass over every variable first, so a bad port and a bad REDIS_URL are reported together.
  loadConfig({ ...runnerConfigSpec, ...ports }, environment);
  const config = loadConfig(runnerConfigSpec, environment);
  const passthrough: Record<string, string> = {};
  for (const [name, value] of Object.entries(environment)) {
    if (value !== undefined) passthrough[name] = value;
  }
  return {
    root: path.resolve(config.root ?? DEFAULT_ROOT),
    redisUrl: config.redisUrl,
    localRedisUrl: config.localRedisUrl,
    redisServerBinary: config.redisServerBinary,
    gatewayApiKeys: config.gatewayApiKeys,
    internalToken: config.internalToken,
    databaseUrl: config.databaseUrl,
    agentUrls: config.agentUrls,
    color: colourAllowed(environment),
    openaiApiKey: config.openaiApiKey,
    openaiBaseUrl: config.openaiBaseUrl,
    llmModel: config.llmModel,
    ports: loadConfig(ports, environment),
    environment: passthrough,
    cwd: path.resolve(passthrough['INIT_CWD'] ?? process.cwd()),
  };
}

/**
 * Whether colours are allowed at all (`NO_COLOR` unset), without loading the whole config: help
 * is printed even when a variable is invalid.
 */
export function colourAllowed(environment: Environment = process.env): boolean {
  return (environment['NO_COLOR'] ?? '') === '';
}
