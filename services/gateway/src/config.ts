import { z } from 'zod';
import {
  booleanSchema,
  byteSizeSchema,
  envVar,
  httpUrlSchema,
  listSchema,
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
import {
  inlineTenantLimitsSchema,
  limitValueSchema,
  tenantLimitsFileSchema,
} from './tenant-limits/tenant-limits-spec';
import {
  inlineToolPermissionsSchema,
  toolPermissionsFileSchema,
} from './tool-permissions/tool-permissions-spec';

const apiKeyPairSchema = z.string().transform((value, context) => {
  const pairs = value
    .split(',')
    .map((pair) => pair.trim())
    .filter((pair) => pair !== '');
  const keys: { key: string; tenant: string }[] = [];
  for (const [index, pair] of pairs.entries()) {
    const separator = pair.lastIndexOf(':');
    const key = separator === -1 ? '' : pair.slice(0, separator);
    const tenant = separator === -1 ? '' : pair.slice(separator + 1);
    if (key.length < 16 || !/^[\w.-]{1,64}$/.test(tenant)) {
      context.addIssue({
        code: 'custom',
        message: `entry ${index + 1} is not 'key:tenant' with a key of at least 16 characters and a tenant of letters, digits, '.', '_' or '-'`,
      });
      return z.NEVER;
    }
    keys.push({ key, tenant });
  }
  if (keys.length === 0) {
    context.addIssue({ code: 'custom', message: 'expected at least one key:tenant pair' });
    return z.NEVER;
  }
  return keys;
});

/** Every variable the gateway reads (docs/architecture.md §11). */
export const configSpec = {
  port: envVar({
    name: 'GATEWAY_PORT',
    schema: portSchema.default(8080),
    description: 'Port the gateway listens on.',
  }),
  host: envVar({
    name: 'GATEWAY_HOST',
    schema: z.string().default('127.0.0.1'),
    description: 'Interface the gateway binds; 0.0.0.0 in containers.',
  }),
  apiKeys: envVar({
    name: 'GATEWAY_API_KEYS',
    schema: apiKeyPairSchema,
    description:
      'Accepted API keys as comma-separated key:tenant pairs (keys of 16+ characters). `pnpm fleet up` generates a dev key when unset.',
    defaultText: 'required (the local runner generates one)',
    example: 'sk-fleet-change-me-0000:acme',
    secret: true,
  }),
  bodyLimit: envVar({
    name: 'GATEWAY_BODY_LIMIT',
    schema: byteSizeSchema.prefault('8mb'),
    description:
      'Largest request body the gateway accepts (413 above it, also while a chunked body streams), e.g. 8mb or 1048576. Bodies are read as sent: a `Content-Encoding` (gzip, br, deflate) is refused with 415, so nothing is inflated past it. The orchestrator must accept an A2A body a little larger than this (ORCHESTRATOR_BODY_LIMIT); if a service behind the gateway still refuses a request, the 413 names this limit, not the internal one.',
    example: '8mb',
    defaultText: '8mb',
  }),
  agentTextLimit: envVar({
    name: 'GATEWAY_AGENT_TEXT_LIMIT',
    schema: z.coerce
      .number({ error: 'expected a whole number' })
      .int('expected a whole number')
      .min(1, 'expected 1 or more')
      .default(262_144),
    description:
      'Most characters of message text (all messages together) an orchestration or reasoning request may carry; above it the request is a 400 (param `messages`) before any session exists. The text travels through plans, progress events and the session in Redis, so it is kept well below GATEWAY_BODY_LIMIT; passthrough requests are left to the upstream.',
  }),
  headerLimit: envVar({
    name: 'GATEWAY_HEADER_LIMIT',
    schema: byteSizeSchema.prefault('16kb'),
    description:
      "Largest request head (request line and all headers, e.g. a long Authorization) the gateway reads; above it the client gets 431 Request Header Fields Too Large and the connection is closed. Node's default is 16kb.",
    example: '16kb',
    defaultText: '16kb',
  }),
  console: envVar({
    name: 'GATEWAY_CONSOLE',
    schema: booleanSchema.default(true),
    description:
      'Serve the web console at `/console` (docs/console.md): sessions, approvals, asking, documents and memory in the browser, signed in with an API key. It calls the same `/v1` API with the same keys and tenants; `false` serves no page.',
    example: 'true',
  }),
  mcpEnabled: envVar({
    name: 'GATEWAY_MCP_ENABLED',
    schema: booleanSchema.default(true),
    description:
      "Serve the fleet as an MCP server at `/mcp` (Streamable HTTP, docs/mcp.md): tools to search and list the tenant's documents and read its sessions, its run files as resources, authenticated with the same API keys as `/v1`. `false` answers 404 there.",
    example: 'true',
  }),
  mcpAllowedHosts: envVar({
    name: 'GATEWAY_MCP_ALLOWED_HOSTS',
    schema: listSchema.default([]),
    description:
      'Host names (without port) an `/mcp` request may name in its `Host` header, comma-separated, beside `127.0.0.1`, `localhost` and `[::1]`, which are always allowed; any other host is refused with 403 (DNS-rebinding protection). Add the names the gateway is reached by, e.g. `gateway,fleet.example.com`.',
    example: 'gateway,fleet.example.com',
    defaultText: 'none (loopback names only)',
  }),
  mcpAllowedOrigins: envVar({
    name: 'GATEWAY_MCP_ALLOWED_ORIGINS',
    schema: listSchema.default([]),
    description:
      'Browser origins an `/mcp` request may come from (`Origin` header), comma-separated, e.g. `https://app.example.com`, beside the loopback origins (`http://localhost:<any port>`, `http://127.0.0.1:<any port>`); any other origin is refused with 403. Requests without `Origin` (MCP clients that are not browsers) are not affected.',
    example: 'https://app.example.com',
    defaultText: 'none (loopback origins only)',
  }),
  mcpStateSecret: envVar({
    name: 'GATEWAY_MCP_STATE_SECRET',
    schema: z.string().min(32, 'expected at least 32 characters').optional(),
    description:
      'The key the MCP `ask` tool signs an approval\'s `requestState` with (HMAC-SHA256; docs/mcp.md, "Approvals over MCP"): a 2026-07-28 client echoes the state back with its decision, and a state that was changed, has expired, is another tenant\'s or was issued for other arguments is refused. Every replica must share it. Unset: derived from FLEET_INTERNAL_TOKEN with HKDF-SHA256, so replicas of one fleet agree; without that token either, a random key of the process (a state does not survive a restart).',
    defaultText: 'derived from FLEET_INTERNAL_TOKEN (HKDF-SHA256)',
    secret: true,
  }),
  uploadLimit: envVar({
    name: 'GATEWAY_UPLOAD_LIMIT',
    schema: byteSizeSchema.prefault('25mb'),
    description:
      'Largest document `POST /v1/documents` accepts (413 above it, also while the upload streams), e.g. 25mb. Compressed uploads (`Content-Encoding`) are refused with 415; a multipart body cut off before its closing boundary gets 400. The RAG agent receives it base64-encoded over A2A, so its own body limit must be about 4/3 of this.',
    example: '25mb',
    defaultText: '25mb',
  }),
  maxAttachmentBytes: envVar({
    name: 'GATEWAY_MAX_ATTACHMENT_BYTES',
    schema: byteSizeSchema.prefault('4mb'),
    description:
      'Largest file (decoded) one attachment of an orchestration or reasoning request may be: an `image_url`/`file` content part (chat) or `input_image`/`input_file` (Responses), as a data URL, base64 or a file id (docs/files.md). 413 naming the part above it. All attachments of a request together stay within GATEWAY_BODY_LIMIT.',
    example: '4mb',
    defaultText: '4mb',
  }),
  maxAttachments: envVar({
    name: 'GATEWAY_MAX_ATTACHMENTS',
    schema: positiveIntSchema.max(16, 'expected at most 16').default(8),
    description:
      'Most attachments (files in the last user message) one orchestration or reasoning request may bring; 400 above it (docs/files.md).',
    example: '8',
  }),
  orchestratorUrl: envVar({
    name: 'ORCHESTRATOR_URL',
    schema: httpUrlSchema.default('http://127.0.0.1:8081'),
    description:
      'Base URL of the orchestrator, which runs `X-Routing-Mode: orchestration` requests.',
  }),
  reasoningAgentUrl: envVar({
    name: 'REASONING_AGENT_URL',
    schema: httpUrlSchema.default('http://127.0.0.1:8087'),
    description:
      'Base URL of the reasoning agent, which runs `X-Routing-Mode: reasoning` requests (in compose: http://reasoning-agent:8087).',
  }),
  ragAgentUrl: envVar({
    name: 'RAG_AGENT_URL',
    schema: httpUrlSchema.default('http://127.0.0.1:8083'),
    description:
      'Base URL of the RAG agent, which stores and lists the documents of `/v1/documents` (in compose: http://rag-agent:8083).',
  }),
  documentIngestTimeoutMs: envVar({
    name: 'DOCUMENT_INGEST_TIMEOUT_MS',
    schema: positiveIntSchema.max(300_000, 'expected at most 300000 (5 minutes)').default(240_000),
    description:
      'How long an upload may wait for the RAG agent to parse, embed and store the document (504 after it). At most 300000 (5 minutes): no upload waits longer.',
  }),
  agentIdleTimeoutMs: envVar({
    name: 'GATEWAY_AGENT_IDLE_TIMEOUT_MS',
    schema: positiveIntSchema
      .min(16_000, 'expected at least 16000: fleet services send a keep-alive every 15 s')
      .default(60_000),
    description:
      "Longest silence the gateway accepts on a stream from the orchestrator or the reasoning agent: no event and no keep-alive for this long, and the request ends with 504 (an `event: error` mid-stream). An idle limit, not a total: fleet services send a keep-alive every 15 s, so a run that waits for a person's approval (HITL_TIMEOUT_SECONDS) or for a model call (LLM_TIMEOUT_MS) keeps its client, streamed or not, as long as that wait may last. Also the time the orchestrator or the reasoning agent has to start answering. At least 16000.",
  }),
  internalToken: envVar({
    name: 'FLEET_INTERNAL_TOKEN',
    schema: z.string().min(16, 'expected at least 16 characters').optional(),
    description:
      'Bearer token on every call between fleet services (docs/architecture.md §10). `pnpm fleet up` generates one. Without it the gateway cannot call the orchestrator or the RAG agent.',
    defaultText: 'unset (generated by the local runner)',
    secret: true,
  }),
  sessionTtlSeconds: envVar({
    name: 'SESSION_TTL_SECONDS',
    schema: positiveIntSchema.default(604_800),
    description:
      'How long a session stays in Redis after its last change (7 days by default). The gateway and the orchestrator both change sessions (approvals, cancels), so both read it.',
  }),
  routingClassifierModel: envVar({
    name: 'ROUTING_CLASSIFIER_MODEL',
    schema: z.string().min(1).optional(),
    description:
      'Model that decides `X-Routing-Mode: auto` (passthrough or orchestration, never reasoning) through structured output. Without an upstream, or when the call fails, a keyword heuristic decides (after an upstream failure it decides alone for 15 s); offline it sends what it cannot place to orchestration, since passthrough would answer 503. `X-Routing-Reason` says which decided and why.',
    defaultText: 'LLM_MODEL',
  }),
  routingClassifierTemperature: envVar({
    name: 'ROUTING_CLASSIFIER_TEMPERATURE',
    schema: z.coerce
      .number({ error: 'expected a number' })
      .min(0, 'expected 0 to 2')
      .max(2, 'expected 0 to 2')
      .default(0),
    description: 'Sampling temperature of the `auto` routing classifier; 0 keeps decisions stable.',
  }),
  routingClassifierTimeoutMs: envVar({
    name: 'ROUTING_CLASSIFIER_TIMEOUT_MS',
    schema: positiveIntSchema.default(4000),
    description:
      'How long `auto` routing waits for the classifier before the heuristic decides; it delays the first token of every uncached `auto` request.',
  }),
  routingCacheSize: envVar({
    name: 'ROUTING_CACHE_SIZE',
    schema: z.coerce
      .number({ error: 'expected a whole number' })
      .int('expected a whole number')
      .min(0, 'expected 0 or more')
      .default(10_000),
    description:
      'Classifier decisions `auto` routing keeps in memory (least recently used evicted), keyed by tenant and a hash of the normalised request; 0 turns the cache off.',
  }),
  routingCacheTtlSeconds: envVar({
    name: 'ROUTING_CACHE_TTL_SECONDS',
    schema: positiveIntSchema.default(600),
    description: 'How long a cached `auto` routing decision is reused.',
  }),
  limitsEnabled: envVar({
    name: 'GATEWAY_LIMITS',
    schema: booleanSchema.default(true),
    description:
      'Per-tenant limits (docs/limits.md), shared by every replica through Redis: requests per window, tokens per day, concurrent orchestrated runs, runs waiting for a person. A refused request gets 429 `rate_limit_error` with `Retry-After`; limited routes carry `x-ratelimit-*` headers. `false` limits nothing and sends none of those headers.',
    example: 'true',
  }),
  limitRpm: envVar({
    name: 'GATEWAY_LIMIT_RPM',
    schema: limitValueSchema.prefault('600'),
    description:
      'Requests a tenant may send per window (GATEWAY_LIMIT_WINDOW_SECONDS) on each of `/v1/chat/completions`, `/v1/responses`, `/v1/embeddings`, and on the rest of `/v1` together; approval decisions and answers to questions are never counted. A whole number or `unlimited`.',
    defaultText: '600',
  }),
  limitWindowSeconds: envVar({
    name: 'GATEWAY_LIMIT_WINDOW_SECONDS',
    schema: positiveIntSchema.default(60),
    description:
      'The window GATEWAY_LIMIT_RPM counts in, in seconds (a fixed window starting at its first request).',
  }),
  limitSyncMs: envVar({
    name: 'GATEWAY_LIMIT_SYNC_MS',
    schema: positiveIntSchema.default(1000),
    description:
      "How often each replica sends the requests and tokens it counted to Redis and reads every replica's counts, in milliseconds. Between two syncs a replica admits a tenant's requests from memory, at most ⌈rpm × sync / window⌉ of them unconfirmed, and asks Redis near the limit; a window admits at most rpm + (replicas − 1) × ⌈rpm × sync / window⌉ requests (docs/limits.md). Shorter: a tighter bound, more Redis commands.",
  }),
  limitRuns: envVar({
    name: 'GATEWAY_LIMIT_RUNS',
    schema: limitValueSchema.prefault('20'),
    description:
      "Orchestrated runs a tenant may have answering at once; a slot is held while the run's response is open. A whole number or `unlimited`. Resumes (`X-Session-ID`) and approval decisions are never refused by it.",
    defaultText: '20',
  }),
  limitWaiting: envVar({
    name: 'GATEWAY_LIMIT_WAITING',
    schema: limitValueSchema.prefault('50'),
    description:
      'Sessions a tenant may have waiting for a person (an approval or a question pending) before its new orchestrated runs are refused; the waiting runs themselves go on. A whole number or `unlimited`.',
    defaultText: '50',
  }),
  limitTokensPerDay: envVar({
    name: 'GATEWAY_LIMIT_TOKENS_PER_DAY',
    schema: limitValueSchema.prefault('unlimited'),
    description:
      "Tokens a tenant's answers may report per UTC day (the upstream's `usage` on passthrough, the run's usage on orchestration and reasoning; unknown usage counts 0). Once spent, new requests on the chat, Responses and embeddings routes get 429 until 00:00 UTC. A whole number or `unlimited`.",
    example: 'unlimited',
    defaultText: 'unlimited',
  }),
  tenantLimits: envVar({
    name: 'GATEWAY_TENANT_LIMITS',
    schema: inlineTenantLimitsSchema.optional(),
    description:
      'Per-tenant overrides of the limits above: `tenant:name=value,…` entries separated by `;`, names `rpm`, `runs`, `waiting`, `tokens_per_day`, values a whole number or `unlimited`. Wins over GATEWAY_TENANT_LIMITS_FILE for the limits it names.',
    example: 'acme:rpm=60,runs=2,tokens_per_day=200000;globex:rpm=600',
    defaultText: 'unset',
  }),
  tenantLimitsFile: envVar({
    name: 'GATEWAY_TENANT_LIMITS_FILE',
    schema: tenantLimitsFileSchema.optional(),
    description:
      'A JSON file of per-tenant overrides, read at start: `{ "acme": { "rpm": 60, "runs": 2, "tokens_per_day": "unlimited" } }` (the names of GATEWAY_TENANT_LIMITS).',
    defaultText: 'unset',
  }),
  toolPermissions: envVar({
    name: 'GATEWAY_TOOL_PERMISSIONS',
    schema: inlineToolPermissionsSchema.optional(),
    description:
      'Which MCP tools each tenant may use (docs/security.md, "Tool permissions"), as JSON: `{"tenants": {"<tenant>": {"allow"?: [...], "deny"?: [...]}}, "default"?: {...}}`, patterns `<server>/<tool>` with `*` as a wildcard, deny winning over allow, no allow list meaning every tool not denied; `default` is the policy of tenants not named. The gateway sends the caller\'s policy with every orchestrated and reasoning request: the planner never sees the other tools, a step naming one fails unsent, and the tools agent refuses them. A tenant named here takes this policy over its entry in GATEWAY_TOOL_PERMISSIONS_FILE; this `default` replaces the file\'s. Unset (both): every tool.',
    example: '{"tenants":{"acme":{"deny":["memory/delete_*"]}}}',
    defaultText: 'unset (every tool)',
  }),
  toolPermissionsFile: envVar({
    name: 'GATEWAY_TOOL_PERMISSIONS_FILE',
    schema: toolPermissionsFileSchema.optional(),
    description:
      'A JSON file of tool permissions in the shape of GATEWAY_TOOL_PERMISSIONS, read at start; a bad entry fails naming the file and the tenant entry.',
    defaultText: 'unset',
  }),
  traceContext: envVar({
    name: 'GATEWAY_TRACE_CONTEXT',
    schema: z
      .enum(['explicit', 'active'], { error: 'expected explicit or active' })
      .default('explicit'),
    description:
      "How the request's trace context travels when tracing is on (docs/tracing.md §7). `explicit`: on `POST /v1/chat/completions`, `/v1/responses` and `/v1/embeddings` the gateway passes its span along and writes the upstream call's `traceparent` itself, entering the context (AsyncLocalStorage) only for orchestration, reasoning, resumes and `auto`'s classifier; every other route runs inside it. `active`: every request runs inside it, as before (for comparison: `pnpm bench gateway --tracing`). The spans are the same either way.",
  }),
  ...redisEnv,
  ...llmEnv,
  ...telemetryEnv,
  ...runtimeEnv,
} as const;

/** The gateway's typed configuration. */
export type GatewayConfig = ConfigOf<typeof configSpec>;

/** Loads the gateway's configuration; the only place it reads the environment (CONTRIBUTING.md convention 15). */
export function loadGatewayConfig(environment: Environment = process.env): GatewayConfig {
  return loadConfig(configSpec, environment);
}
