import { z } from 'zod';
import { DEFAULT_MAX_HANDOFFS, DEFAULT_MAX_REVIEW_ROUNDS } from '@fleet/a2a';
import {
  a2aServerEnv,
  booleanSchema,
  byteSizeSchema,
  envVar,
  httpUrlSchema,
  listSchema,
  llmEnv,
  loadConfig,
  positiveIntSchema,
  redisEnv,
  runtimeEnv,
  telemetryEnv,
  type ConfigOf,
  type Environment,
} from '@fleet/config';
import { MAX_PLAN_NODES } from './execution/plan-growth';

/** AGENT_URLS: comma-separated http(s) base URLs, trailing slashes removed. */
const agentUrlsSchema = listSchema.pipe(z.array(httpUrlSchema));

/**
 * The A2A body limit by default: twice the gateway's default GATEWAY_BODY_LIMIT (8mb) plus 1mb. A
 * chat request the gateway accepted reaches the orchestrator re-encoded as history (each turn as
 * `{ role, content }`, a turn without content gaining `"content":""`) inside a JSON-RPC envelope:
 * at most about 1.7 times its size.
 */
export const DEFAULT_BODY_LIMIT = 17 * 1024 * 1024;

/** Every variable the orchestrator reads (docs/architecture.md §11). */
export const configSpec = {
  ...a2aServerEnv({ prefix: 'ORCHESTRATOR', label: 'the orchestrator', defaultPort: 8081 }),
  bodyLimit: envVar({
    name: 'ORCHESTRATOR_BODY_LIMIT',
    schema: byteSizeSchema.prefault('17mb'),
    description:
      'Largest A2A JSON-RPC body `POST /a2a` accepts (413 above it), e.g. 17mb. The gateway forwards every orchestration request it accepted (GATEWAY_BODY_LIMIT) re-encoded with an envelope, up to about twice its size: keep this at least 2 × GATEWAY_BODY_LIMIT + 1mb. If it is smaller, the gateway answers 413 naming its own limit.',
    example: '17mb',
    defaultText: '17mb (2 × the default GATEWAY_BODY_LIMIT + 1mb)',
  }),
  plannerUrl: envVar({
    name: 'PLANNER_URL',
    schema: httpUrlSchema.default('http://127.0.0.1:8082'),
    description: 'Base URL of the planner, whose Agent Card names its A2A endpoint.',
  }),
  agentUrls: envVar({
    name: 'AGENT_URLS',
    schema: agentUrlsSchema.default([]),
    description:
      'Comma-separated base URLs of the agents whose Agent Cards the orchestrator reads. Replicas of one agent (same card name) count as one agent.',
    defaultText: 'empty (the local runner lists the local fleet’s agents)',
    example: 'http://127.0.0.1:8083,http://127.0.0.1:8084',
  }),
  nodeTimeoutMs: envVar({
    name: 'NODE_TIMEOUT_MS',
    schema: positiveIntSchema.default(120_000),
    description:
      'How long one attempt of one plan node may run before it is aborted (and the agent task canceled).',
  }),
  progressIntervalMs: envVar({
    name: 'ORCHESTRATOR_PROGRESS_INTERVAL_MS',
    schema: z.coerce
      .number({ error: 'expected a number' })
      .int('expected a whole number')
      .min(0, 'expected 0 or more')
      .max(60_000, 'expected at most 60000')
      .default(500),
    description:
      "Shortest time between two progress lines (`node-progress`) of one step, from what its agent says it is doing (WORKING status messages); the latest one waiting is sent when the time has passed, and a step sends at most 50. 0 turns the agents' progress lines off.",
  }),
  maxHandoffs: envVar({
    name: 'ORCHESTRATOR_MAX_HANDOFFS',
    schema: z.coerce
      .number({ error: 'expected a number' })
      .int('expected a whole number')
      .min(0, 'expected 0 or more')
      .max(MAX_PLAN_NODES, `expected at most ${MAX_PLAN_NODES}`)
      .default(DEFAULT_MAX_HANDOFFS),
    description:
      'Most steps one run may add to its plan because a step’s result handed work off to another agent (a `handoff` data part, docs/a2a.md); a hand-off beyond it is refused (`handoff-refused`) and the run goes on. 0: hand-offs are refused.',
  }),
  replanAfterFailure: envVar({
    name: 'ORCHESTRATOR_REPLAN_AFTER_FAILURE',
    schema: booleanSchema.default(true),
    description:
      'After a step failed for a reason another agent could work around (not declined, not canceled), ask the planner once more for the remaining work and run the steps it adds with other agents; once per run. false: a failed step stays failed.',
  }),
  nodeMaxAttempts: envVar({
    name: 'NODE_MAX_ATTEMPTS',
    schema: positiveIntSchema.default(3),
    description:
      'Attempts per plan node on transient failures (connection errors, time-outs, 5xx/429), with exponential backoff and jitter.',
  }),
  cardCacheTtlSeconds: envVar({
    name: 'CARD_CACHE_TTL_SECONDS',
    schema: positiveIntSchema.default(60),
    description:
      'How long agent cards stay cached (Redis and memory) before discovery reads them and checks health again.',
  }),
  sessionTtlSeconds: envVar({
    name: 'SESSION_TTL_SECONDS',
    schema: positiveIntSchema.default(604_800),
    description: 'How long a session stays in Redis after its last change (7 days by default).',
  }),
  answerTableRows: envVar({
    name: 'ORCHESTRATOR_ANSWER_TABLE_ROWS',
    schema: positiveIntSchema.max(200, 'expected at most 200').default(20),
    description:
      'The most rows of a step’s table (a data part `{ columns, rows }` or a CSV/TSV file) the answer shows, at most 200; a line under a cut table says how many rows it has.',
  }),
  maxFileBytes: envVar({
    name: 'ORCHESTRATOR_MAX_FILE_BYTES',
    schema: byteSizeSchema.prefault('8mb').pipe(
      z
        .number()
        .int()
        .min(1)
        .max(256 * 1024 * 1024, 'expected at most 256mb'),
    ),
    description:
      'Largest file a run keeps (a step’s file part, or a file attached to the request), e.g. 8mb; a larger one is refused (`file-refused`) and the step goes on. At most 256mb.',
    example: '8mb',
    defaultText: '8mb',
  }),
  maxRunFiles: envVar({
    name: 'ORCHESTRATOR_MAX_RUN_FILES',
    schema: positiveIntSchema.max(1000, 'expected at most 1000').default(32),
    description:
      'Most files one run keeps, its steps’ and its attachments together; the rest are refused, in one `file-refused` per step. At most 1000.',
  }),
  maxRunFileBytes: envVar({
    name: 'ORCHESTRATOR_MAX_RUN_FILE_BYTES',
    schema: byteSizeSchema.prefault('32mb').pipe(
      z
        .number()
        .int()
        .min(1)
        .max(1024 * 1024 * 1024, 'expected at most 1gb'),
    ),
    description:
      'Most bytes of files one run keeps in all, e.g. 32mb. It also bounds an agent’s answer: an event of its stream may be at most 4/3 of this plus 1mb (its files in base64), and a larger answer fails its step. At most 1gb.',
    example: '32mb',
    defaultText: '32mb',
  }),
  fileTtlSeconds: envVar({
    name: 'ORCHESTRATOR_FILE_TTL_SECONDS',
    schema: positiveIntSchema.optional(),
    description:
      'How long a run’s files are kept (their `expiresAt`), in seconds; after that the file store deletes them.',
    defaultText: 'SESSION_TTL_SECONDS',
  }),
  hitlTimeoutSeconds: envVar({
    name: 'HITL_TIMEOUT_SECONDS',
    schema: positiveIntSchema.default(120),
    description:
      'How long a person has to decide an approval (an agent’s, or the plan’s with X-Plan-Approval: required) before it times out; a time-out counts as a denial. An agent may ask for a shorter expiry.',
  }),
  reviewTimeoutSeconds: envVar({
    name: 'ORCHESTRATOR_REVIEW_TIMEOUT_SECONDS',
    schema: positiveIntSchema.optional(),
    description:
      'How long a person has to review a composed answer (X-Result-Review: required) before the time-out decides it (ORCHESTRATOR_REVIEW_ON_TIMEOUT), in seconds.',
    defaultText: 'HITL_TIMEOUT_SECONDS',
  }),
  reviewOnTimeout: envVar({
    name: 'ORCHESTRATOR_REVIEW_ON_TIMEOUT',
    schema: z.enum(['approve', 'fail'], { error: 'expected approve or fail' }).default('approve'),
    description:
      'What an answer nobody reviewed in time gets: approve (it is sent as it stands; the review round records that the time-out approved it) or fail (the run ends failed: the answer was not reviewed in time).',
  }),
  maxReviewRounds: envVar({
    name: 'ORCHESTRATOR_MAX_REVIEW_ROUNDS',
    schema: positiveIntSchema.max(100, 'expected at most 100').default(DEFAULT_MAX_REVIEW_ROUNDS),
    description:
      'How many times one run’s answer is put up for review, at most 100; when the last round is sent back too, the answer stands as it is and is sent (a status line says so).',
  }),
  planConfidenceThreshold: envVar({
    name: 'ORCHESTRATOR_PLAN_CONFIDENCE_THRESHOLD',
    schema: z.coerce
      .number({ error: 'expected a number from 0 to 1' })
      .min(0, 'expected a number from 0 to 1')
      .max(1, 'expected a number from 0 to 1')
      .default(0.5),
    description:
      'A plan with steps whose confidence (0–1, from the planner) is below this is uncertain: the stream says so and the run does what ORCHESTRATOR_LOW_CONFIDENCE (or the request’s X-Low-Confidence) says. 0.5 is the middle of the heuristic planner’s 0.2–0.8 and the confidence of keyword matches half as strong as two tags: a plan made from weak matches, or the fallback to the knowledge skill (0.2), is flagged. Plans given with the request are never flagged; 0 flags nothing.',
  }),
  lowConfidence: envVar({
    name: 'ORCHESTRATOR_LOW_CONFIDENCE',
    schema: z
      .enum(['run', 'approve', 'ask'], { error: 'expected run, approve or ask' })
      .default('run'),
    description:
      'What an uncertain plan gets when the request does not say (X-Low-Confidence): run (run it anyway, saying it is uncertain), approve (show it for approval as with X-Plan-Approval: required) or ask (ask the person; the reply re-plans, "go ahead" runs it).',
  }),
  recoveryIntervalMs: envVar({
    name: 'SESSION_RECOVERY_INTERVAL_MS',
    schema: z.coerce.number().int().min(0).default(5000),
    description:
      'How often the orchestrator looks for open sessions no orchestrator runs (their runner died without handing them over) and resumes them; 0 turns it off.',
  }),
  scheduling: envVar({
    name: 'ORCHESTRATOR_SCHEDULING',
    schema: z
      .enum(['dependency', 'stages'], { error: 'expected dependency or stages' })
      .default('dependency'),
    description:
      'dependency: each node starts as soon as its dependencies finish. stages: level by level, each waiting for the whole previous level (only for the benchmark’s comparison).',
  }),
  maxActiveRuns: envVar({
    name: 'ORCHESTRATOR_MAX_ACTIVE_RUNS',
    schema: z.coerce.number().int().min(0).default(16),
    description:
      'Runs one orchestrator executes at once (planning, steps, composing); the others wait in one queue per tenant, and a freed slot goes to the tenants in turn, so a tenant that sends many runs waits behind its own. A run whose steps wait for approvals or answers does not count meanwhile (it counts again at once when decided); one waiting for its plan to be approved gives its slot up and queues for one after. 0: no limit (every run starts at once, nothing is queued or refused).',
    defaultText: '16 (docs/benchmarks.md, `pnpm bench tenants`)',
  }),
  maxActiveRunsPerTenant: envVar({
    name: 'ORCHESTRATOR_MAX_ACTIVE_RUNS_PER_TENANT',
    schema: z.coerce.number().int().min(0).default(3),
    description:
      'Runs of one tenant one orchestrator executes at once; its further runs wait in its queue even when slots are free, so the slots above it are there for other tenants, whose runs start without waiting. 0: a tenant may take every slot (ORCHESTRATOR_MAX_ACTIVE_RUNS).',
    defaultText: '3 (docs/benchmarks.md, `pnpm bench tenants`)',
  }),
  maxQueuedRunsPerTenant: envVar({
    name: 'ORCHESTRATOR_MAX_QUEUED_RUNS_PER_TENANT',
    schema: z.coerce.number().int().min(0).default(100),
    description:
      'Runs of one tenant that may wait for a slot on one orchestrator; a new run beyond it is refused with RATE_LIMITED (the gateway answers 429 with Retry-After). Resumed sessions are never refused. 0: a run that cannot start at once is refused.',
  }),
  memoryEnabled: envVar({
    name: 'MEMORY_ENABLED',
    schema: booleanSchema.default(true),
    description:
      'Long-term memory (docs/memory.md): extract facts and preferences from each request beside planning, store them per tenant and user in Redis, and give them to every agent and the composer. false turns it off (nothing is read or stored).',
  }),
  memoryExtractionTimeoutMs: envVar({
    name: 'MEMORY_EXTRACTION_TIMEOUT_MS',
    schema: positiveIntSchema.default(10_000),
    description:
      'Longest wait for the LLM memory extractor before the offline rules answer instead. The composer waits for the extraction at most this long (it normally finished during planning).',
  }),
  memoryTtlSeconds: envVar({
    name: 'MEMORY_TTL_SECONDS',
    schema: z.coerce.number().int().min(0).default(0),
    description:
      "How long a user's memory is kept after its last change; 0 keeps it until the user erases it (DELETE /v1/memory).",
  }),
  ...llmEnv,
  ...redisEnv,
  ...telemetryEnv,
  ...runtimeEnv,
} as const;

/** The orchestrator's typed configuration. */
export type OrchestratorConfig = ConfigOf<typeof configSpec>;

/** Loads the orchestrator's configuration; the only place it reads the environment (CONTRIBUTING.md convention 15). */
export function loadOrchestratorConfig(environment: Environment = process.env): OrchestratorConfig {
  return loadConfig(configSpec, environment);
}
