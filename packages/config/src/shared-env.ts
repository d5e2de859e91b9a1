import { z } from 'zod';
import { envVar } from './env-var';
import {
  booleanSchema,
  hostPortListSchema,
  httpUrlSchema,
  logLevelSchema,
  positiveIntSchema,
  redisUrlSchema,
} from './schemas';

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

/**
 * Redis, for sessions, locks, task stores and caches: one server (REDIS_URL), a Redis Cluster
 * (REDIS_CLUSTER_NODES) or a primary found through Redis Sentinel (REDIS_SENTINELS). Every
 * service connects with `createFleetRedis` (`@fleet/a2a/server`), which picks the mode.
 */
export const redisEnv = {
  redisUrl: envVar({
    name: 'REDIS_URL',
    schema: redisUrlSchema.default('redis://127.0.0.1:6379'),
    description:
      'Redis for sessions, locks, agent task stores and caches. With REDIS_CLUSTER_NODES or REDIS_SENTINELS its host and port are not used, but its user name, password and rediss:// (TLS) still apply, and its database with Sentinel.',
  }),
  redisClusterNodes: envVar({
    name: 'REDIS_CLUSTER_NODES',
    schema: hostPortListSchema.optional(),
    description:
      'Redis Cluster: comma-separated host:port of some of its nodes (the others are discovered). Set, the fleet uses the cluster instead of REDIS_URL; REDIS_URL then gives only the user name, password and TLS for every node, and must name database 0 or none (a cluster has only database 0). Not together with REDIS_SENTINELS.',
    defaultText: 'unset: one Redis, REDIS_URL',
    example: 'redis-0:6379,redis-1:6379,redis-2:6379',
    conflictsWith: ['REDIS_SENTINELS'],
  }),
  redisSentinels: envVar({
    name: 'REDIS_SENTINELS',
    schema: hostPortListSchema.optional(),
    description:
      'Redis Sentinel: comma-separated host:port of the sentinels. Set, the fleet asks them for the primary named REDIS_SENTINEL_NAME and follows its fail-overs; REDIS_URL then gives only the user name, password, database and TLS for the primary (the sentinels are asked without password or TLS). Not together with REDIS_CLUSTER_NODES.',
    defaultText: 'unset: one Redis, REDIS_URL',
    example: 'sentinel-0:26379,sentinel-1:26379,sentinel-2:26379',
    conflictsWith: ['REDIS_CLUSTER_NODES'],
  }),
  redisSentinelName: envVar({
    name: 'REDIS_SENTINEL_NAME',
    schema: z.string().default('mymaster'),
    description:
      'The name the sentinels monitor the primary under (their `sentinel monitor <name> …`); only with REDIS_SENTINELS.',
  }),
  redisClaimReplicas: envVar({
    name: 'REDIS_CLAIM_REPLICAS',
    schema: z.coerce
      .number({ error: 'expected a number' })
      .int('expected a whole number')
      .min(0, 'expected 0 or more')
      .max(16, 'expected at most 16')
      .default(0),
    description:
      "Replicas that must hold an agent's claim on a side effect (an approved mail sent, an approved program run) before the agent carries it out (Redis WAIT on the claim's primary). Set it to 1 with Sentinel or a Cluster with replicas: a fail-over can then never forget a claim and let the side effect run twice; with fewer replicas acknowledging within REDIS_CLAIM_WAIT_MS the side effect fails with a 503 instead of running. 0: a claim counts once the primary has it.",
  }),
  redisClaimWaitMs: envVar({
    name: 'REDIS_CLAIM_WAIT_MS',
    schema: positiveIntSchema.max(60_000, 'expected at most 60000').default(1000),
    description: 'How long a claim waits for REDIS_CLAIM_REPLICAS replicas to acknowledge it.',
  }),
} as const;

/**
 * The samplers OTEL_TRACES_SAMPLER may name (the OpenTelemetry SDK configuration spec; the same
 * list as `@fleet/telemetry`'s TRACES_SAMPLER_NAMES, which turns the choice into a sampler).
 */
const TRACES_SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;

/** An `OPENINFERENCE_HIDE_*` flag (docs/tracing.md §6). */
function hideFlag(name: string, description: string) {
  return envVar({ name, schema: booleanSchema.default(false), description });
}

/**
 * OpenTelemetry export (docs/tracing.md). With no endpoint nothing is exported. Also the tracing
 * cost and privacy knobs every service honours (docs/tracing.md §6–7): the sampler and
 * OpenInference's masking. The SDK reads OTEL_BSP_* (batching) and OTEL_ATTRIBUTE_* (limits)
 * itself; they are listed in docs/tracing.md.
 */
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
  otelTracesSampler: envVar({
    name: 'OTEL_TRACES_SAMPLER',
    schema: z
      .enum(TRACES_SAMPLERS, { error: `expected one of ${TRACES_SAMPLERS.join(', ')}` })
      .optional(),
    description:
      'Which traces are kept: parentbased_traceidratio with OTEL_TRACES_SAMPLER_ARG=0.1 keeps one request in ten (whole traces, across services); always_off keeps none. Unsampled requests cost almost nothing.',
    defaultText: 'parentbased_always_on (every trace)',
  }),
  otelTracesSamplerArg: envVar({
    name: 'OTEL_TRACES_SAMPLER_ARG',
    schema: z.coerce
      .number({ error: 'expected a number from 0 to 1' })
      .min(0, 'expected a number from 0 to 1')
      .max(1, 'expected a number from 0 to 1')
      .optional(),
    description: 'The share of traces the traceidratio samplers keep, 0 to 1.',
    defaultText: '1',
  }),
  openinferenceHideInputs: hideFlag(
    'OPENINFERENCE_HIDE_INPUTS',
    'true: input.value is __REDACTED__ and input messages are left out of spans.',
  ),
  openinferenceHideOutputs: hideFlag(
    'OPENINFERENCE_HIDE_OUTPUTS',
    'true: output.value is __REDACTED__ and output messages are left out of spans.',
  ),
  openinferenceHideInputMessages: hideFlag(
    'OPENINFERENCE_HIDE_INPUT_MESSAGES',
    'true: llm.input_messages.* are left out of spans (input.value stays).',
  ),
  openinferenceHideOutputMessages: hideFlag(
    'OPENINFERENCE_HIDE_OUTPUT_MESSAGES',
    'true: llm.output_messages.* are left out of spans (output.value stays).',
  ),
  openinferenceHideInputText: hideFlag(
    'OPENINFERENCE_HIDE_INPUT_TEXT',
    'true: the content of input messages is __REDACTED__ (roles and tool calls stay).',
  ),
  openinferenceHideOutputText: hideFlag(
    'OPENINFERENCE_HIDE_OUTPUT_TEXT',
    'true: the content of output messages is __REDACTED__.',
  ),
  openinferenceHideLlmInvocationParameters: hideFlag(
    'OPENINFERENCE_HIDE_LLM_INVOCATION_PARAMETERS',
    'true: llm.invocation_parameters is left out of spans.',
  ),
} as const;
