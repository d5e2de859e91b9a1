// The code agent's composition root (CONTRIBUTING.md convention 3): configuration, telemetry, the LLM
// client, the sandbox, Redis, the task store and the HTTP server are built here and nowhere else.
import { config, telemetry } from './instrumentation';
import { agentModel, describeUpstream, startAgentService } from '@fleet/agent-kit';
import { runMain } from '@fleet/http';
import { OFFLINE_HINT } from '@fleet/llm';
import { createLogger } from '@fleet/telemetry';
import { codeAvailability, createCodeHandler } from './agent';
import { createCodeWriter } from './authoring';
import { DEFAULT_DATA_FILE_LIMITS } from './data-files';
import { sandboxLimits } from './config';
import { createSandbox } from './sandbox';

async function main(): Promise<void> {
  const logger = createLogger({ service: 'code-agent', level: config.logLevel });
  const model = agentModel(config);
  const writer = createCodeWriter({ llm: model.llm });
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

  // The agent stays up without a sandbox (it says why on every task); the log says so at once.
  const status = await sandbox.check();
  const memory = await sandbox.memoryBound();
  // Said on the card and by /readyz; the kit logs it once when it is not `ready`.
  const availability = codeAvailability({ sandbox: status, offline: model.upstream.offline });
  // Closing the handler aborts running turns, which kills their sandboxes.
  await startAgentService({
    serviceName: 'code-agent',
    config,
    // Room for the step's files for /data: base64 makes them a third larger, plus the rest.
    bodyLimit: Math.ceil((DEFAULT_DATA_FILE_LIMITS.maxTotalBytes * 4) / 3) + 1024 * 1024,
    logger,
    telemetry,
    availability,
    createHandler: ({ store, url }) =>
      createCodeHandler({
        writer,
        sandbox,
        store,
        url,
        internalToken: true,
        requireApproval: !config.allowUnapproved,
        maxAttempts: config.maxAttempts,
        approvalTtlMs: config.approvalTtlSeconds * 1000,
        logger,
        availability,
      }),
    describe: {
      ...describeUpstream(model, config.llmModel),
      sandbox: config.sandbox,
      sandboxAvailable: status.available,
      memoryBound: memory.enforcement,
      runMemoryBytes: memory.runMemoryBytes,
      requireApproval: !config.allowUnapproved,
    },
  });

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
  if (model.upstream.offline) {
    logger.warn(
      {},
      `${OFFLINE_HINT} The code agent runs only programs the task itself contains in a \`\`\`python fenced block.`,
    );
  }
}

runMain('code-agent', main);
