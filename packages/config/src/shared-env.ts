import { z } from 'zod';
import { envVar } from './env-var';
import { httpUrlSchema, logLevelSchema, positiveIntSchema, redisUrlSchema } from './schemas';

/**
 * Variables that several services share. A service's spec spreads the groups it needs next to its
 * own variables, so each variable is declared and documented once.
 */

/** Logging and runtime mode. */
export const runtimeEnv = {
  logLevel: envVar({
    name: 'LOG_LEVEL',
    schema: logLevelSchema.default('info'),
    description: 'Minimum level of the JSON logs every service writes to stdout.',
  }),
  nodeEnv: envVar({
    name: 'NODE_ENV',
    schema: z
      .enum(['development', 'production', 'test'], {
        error: 'expected development, production or test',
      })
      .default('development'),
    description: 'production hides stack traces from error bodies.',
  }),
} as const;

/** The one OpenAI-compatible upstream (docs/architecture.md §8). Both unset means offline mode. */
export const llmEnv = {
  openaiApiKey: envVar({
    name: 'OPENAI_API_KEY',
    schema: z.string().optional(),
    description:
      'API key for the upstream LLM, read as the OpenAI SDK reads it. Unset together with OPENAI_BASE_URL means offline mode.',
    defaultText: 'unset: offline mode',
    example: 'sk-...',
    secret: true,
  }),
  openaiBaseUrl: envVar({
    name: 'OPENAI_BASE_URL',
    schema: httpUrlSchema.optional(),
    description:
      'Base URL of any OpenAI-compatible server (OpenAI, Ollama, vLLM, LM Studio), ending before /chat/completions.',
    defaultText: 'https://api.openai.com/v1 when only OPENAI_API_KEY is set; unset: offline mode',
    example: 'http://127.0.0.1:11434/v1',
  }),
  llmModel: envVar({
    name: 'LLM_MODEL',
    schema: z.string().default('gpt-4o-mini'),
    description: 'Chat model the fleet itself uses (planner, composer, agents).',
  }),
  llmTimeoutMs: envVar({
    name: 'LLM_TIMEOUT_MS',
    schema: positiveIntSchema.default(120_000),
    description: 'How long one upstream LLM call may take before it fails with a 504.',
  }),
} as const;

/** Redis, for sessions, locks, task stores and caches. */
export const redisEnv = {
  redisUrl: envVar({
    name: 'REDIS_URL',
    schema: redisUrlSchema.default('redis://127.0.0.1:6379'),
    description: 'Redis for sessions, locks, agent task stores and caches.',
  }),
} as const;

/** OpenTelemetry export (docs/tracing.md). With no endpoint nothing is exported. */
export const telemetryEnv = {
  otelEndpoint: envVar({
    name: 'OTEL_EXPORTER_OTLP_ENDPOINT',
    schema: httpUrlSchema.optional(),
    description:
      'OTLP/HTTP base URL; /v1/traces is appended. For Arize Phoenix: http://<host>:6006.',
    defaultText: 'unset: no traces are exported',
    example: 'http://127.0.0.1:6006',
  }),
  otelTracesEndpoint: envVar({
    name: 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
    schema: httpUrlSchema.optional(),
    description:
      'Full OTLP traces URL, used exactly as given; wins over OTEL_EXPORTER_OTLP_ENDPOINT.',
    defaultText: 'unset',
  }),
  otelProtocol: envVar({
    name: 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL',
    schema: z
      .enum(['http/protobuf', 'http/json'], { error: 'expected http/protobuf or http/json' })
      .default('http/protobuf'),
    description: 'Export encoding. Phoenix accepts only http/protobuf; http/json is for tests.',
  }),
  otelServiceName: envVar({
    name: 'OTEL_SERVICE_NAME',
    schema: z.string().optional(),
    description: "Overrides the service's name on its spans.",
    defaultText: 'the service name, e.g. gateway',
  }),
  phoenixProjectName: envVar({
    name: 'PHOENIX_PROJECT_NAME',
    schema: z.string().default('a2a-fleet'),
    description:
      'Phoenix project every service reports to (openinference.project.name); keep it the same fleet-wide so a run is one trace.',
  }),
  phoenixApiKey: envVar({
    name: 'PHOENIX_API_KEY',
    schema: z.string().optional(),
    description: 'Sent as a bearer token on export, for Phoenix with PHOENIX_ENABLE_AUTH=true.',
    defaultText: 'unset',
    secret: true,
  }),
} as const;
