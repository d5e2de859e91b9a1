// The code agent's composition root (CONTRIBUTING.md convention 3): configuration, telemetry, the LLM
// client, the sandbox, Redis, the task store and the HTTP server are built here and nowhere else.
import { config, telemetry } from './instrumentation';
import { Redis } from 'ioredis';
import { RedisTaskStore, FLEET_REDIS_OPTIONS } from '@fleet/a2a/server';
import { serveAgent } from '@fleet/a2a/server/express';
import { runMain } from '@fleet/http';
import { createLlmClient, OFFLINE_HINT, resolveUpstream } from '@fleet/llm';
import { createLogger } from '@fleet/telemetry';
import { createCodeHandler } from './agent';
import { createCodeWriter } from './authoring';
import { codeAgentPublicUrl, sandboxLimits } from './config';
import { createSandbox } from './sandbox';

async function main(): Promise<void> {
  const logger = createLogger({ service: 'code-agent', level: config.logLevel });
  const upstream = resolveUpstream({ apiKey: config.openaiApiKey, baseURL: config.openaiBaseUrl });
  const client = upstream.offline
    ? undefined
    : createLlmClient({ upstream, timeoutMs: config.llmTimeoutMs });
  const writer = createCodeWriter({
    llm: client ? { client, model: config.llmModel } : undefined,
  });
  const sandbox = createSandbox({
    mode: config.sandbox,
    bwrapPath: config.bwrapPath,
    python: config.python,
    limits: sandboxLimits(config),
    extraReadOnlyPaths: config.extraReadOnlyPaths ?? [],
    ...(config.workRoot === undefined ? {} : { workRoot: config.workRoot }),
    firstUid: config.firstUid,
    maxConcurrentRuns: config.maxConcurrentRuns,
    cgroup: config.cgroup,
  });

  const redis = new Redis(config.redisUrl, FLEET_REDIS_OPTIONS);
  // Without a listener ioredis reports connection errors as unhandled; /readyz shows the state.
  redis.on('error', (error: Error) => logger.warn({ err: error }, 'redis connection error'));
  const taskStore = new RedisTaskStore({ redis, keyPrefix: 'fleet:a2a:code-agent' });

  const url = codeAgentPublicUrl(config);
  const handler = createCodeHandler({
    writer,
    sandbox,
    store: taskStore,
    url,
    internalToken: true,
    requireApproval: !config.allowUnapproved,
    maxAttempts: config.maxAttempts,
    approvalTtlMs: config.approvalTtlSeconds * 1000,
    logger,
  });

  // Closing the handler aborts running turns, which kills their sandboxes.
  const running = await serveAgent({
    serviceName: 'code-agent',
    handler,
    taskStore,
    redis,
    internalToken: config.internalToken,
    logger,
    port: config.port,
    host: config.host,
    production: config.nodeEnv === 'production',
    onShutdown: [() => telemetry.shutdown()],
  });

  // The agent stays up without a sandbox (it says why on every task); the log says so at once.
  const status = await sandbox.check();
  const memory = await sandbox.memoryBound();
  logger.info(
    {
      url: running.url,
      card: url,
      upstream: upstream.offline ? 'offline' : upstream.baseURL,
      model: upstream.offline ? undefined : config.llmModel,
      sandbox: config.sandbox,
      sandboxAvailable: status.available,
      memoryBound: memory.enforcement,
      runMemoryBytes: memory.runMemoryBytes,
      requireApproval: !config.allowUnapproved,
      tracing: telemetry.enabled,
    },
    'code-agent listening',
  );
  if (!status.available) {
    logger.error(
      { reason: status.reason },
      'the sandbox cannot run code here; every run will be refused',
    );
  }
  // What bounds a run's memory, exactly (CODE_AGENT_CGROUP, CODE_AGENT_RUN_MEMORY_LIMIT).
  const memoryMessage = `memory of a run: ${memory.description}`;
  if (memory.enforcement === 'per-process') logger.warn({ ...memory }, memoryMessage);
  else logger.info({ ...memory }, memoryMessage);
  if (config.sandbox === 'unsandboxed') {
    logger.warn(
      {},
      'CODE_AGENT_SANDBOX=unsandboxed: programs run WITHOUT isolation (resource limits only)',
    );
  }
  if (config.allowUnapproved) {
    logger.warn(
      {},
      'CODE_AGENT_ALLOW_UNAPPROVED=true: programs run without a person approving them',
    );
  }
  if (upstream.offline) {
    logger.warn(
      {},
      `${OFFLINE_HINT} The code agent runs only programs the task itself contains in a \`\`\`python fenced block.`,
    );
  }
}

runMain('code-agent', main);
