import { z } from 'zod';
import {
  a2aServerEnv,
  booleanSchema,
  byteSizeSchema,
  envVar,
  listSchema,
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
import type { SandboxLimits } from './sandbox';

/** Every variable the code agent reads (docs/architecture.md §8, §10, §11). */
export const configSpec = {
  ...a2aServerEnv({
    prefix: 'CODE_AGENT',
    label: 'the code agent',
    defaultPort: 8086,
    deprecatedPublicUrlNames: ['CODE_AGENT_URL'],
  }),
  allowUnapproved: envVar({
    name: 'CODE_AGENT_ALLOW_UNAPPROVED',
    schema: booleanSchema.default(false),
    description:
      'Run programs without asking a person first. Off by default: every run waits in TASK_STATE_AUTH_REQUIRED with the full program as the preview. Turn on only where nobody needs to review the code (benchmarks, trusted batch jobs).',
  }),
  sandbox: envVar({
    name: 'CODE_AGENT_SANDBOX',
    schema: z
      .enum(['bubblewrap', 'unsandboxed'], { error: 'expected bubblewrap or unsandboxed' })
      .default('bubblewrap'),
    description:
      'How programs run. bubblewrap: in a bubblewrap sandbox (no network, read-only system, private /tmp, new PID namespace, resource limits); without bubblewrap the agent refuses to run code and says why. unsandboxed: as plain child processes with the resource limits but NO isolation (they can read files and use the network) — only on purpose, for trusted setups without namespaces.',
  }),
  bwrapPath: envVar({
    name: 'CODE_AGENT_BWRAP_PATH',
    schema: z.string().min(1).default('/usr/bin/bwrap'),
    description: 'The bubblewrap executable (Debian/Ubuntu package bubblewrap).',
  }),
  python: envVar({
    name: 'CODE_AGENT_PYTHON',
    schema: z.string().min(1).default('/usr/bin/python3'),
    description:
      'The Python interpreter programs run with. Inside the sandbox only /usr, /bin, /lib* and a few /etc files exist, so it must live there (or under CODE_AGENT_SANDBOX_READ_ONLY_PATHS); a pyenv shim under /root does not work.',
  }),
  extraReadOnlyPaths: envVar({
    name: 'CODE_AGENT_SANDBOX_READ_ONLY_PATHS',
    schema: listSchema.optional(),
    description:
      'More host paths (comma-separated) the sandbox sees read-only at the same place, e.g. a Python installed under /opt with its packages.',
    defaultText: 'none',
    example: '/opt/python3.12',
  }),
  timeoutMs: envVar({
    name: 'CODE_AGENT_TIMEOUT_MS',
    schema: positiveIntSchema.default(20_000),
    description:
      'Wall-clock limit of one run in milliseconds; then the whole sandbox is killed. Keep it below the orchestrator node timeout.',
  }),
  cpuSeconds: envVar({
    name: 'CODE_AGENT_CPU_SECONDS',
    schema: positiveIntSchema.default(10),
    description: 'CPU-time limit of each process of a run, in seconds (RLIMIT_CPU).',
  }),
  memoryBytes: envVar({
    name: 'CODE_AGENT_MEMORY_LIMIT',
    schema: byteSizeSchema.prefault('512mb'),
    description:
      'Address-space limit of each process of a run (RLIMIT_AS; bytes, or 256mb, 1gb…): bigger allocations fail with MemoryError. CODE_AGENT_RUN_MEMORY_LIMIT bounds all processes of a run together.',
  }),
  runMemoryBytes: envVar({
    name: 'CODE_AGENT_RUN_MEMORY_LIMIT',
    schema: byteSizeSchema.prefault('1gb'),
    description:
      "Memory of a whole run, all its processes together, its /tmp included (bytes, or 512mb, 1gb…). With a cgroup (CODE_AGENT_CGROUP) it is the cgroup's limit, swap off: the run is killed beyond it and reported as memory-limit. Without one, runs get fewer processes instead, so that processes × CODE_AGENT_MEMORY_LIMIT + CODE_AGENT_TMP_SIZE stays within it.",
  }),
  cgroup: envVar({
    name: 'CODE_AGENT_CGROUP',
    schema: z
      .enum(['auto', 'required', 'v2', 'v1', 'off'], {
        error: 'expected auto, required, v2, v1 or off',
      })
      .default('auto'),
    description:
      "How a whole run is bounded (one cgroup per run: CODE_AGENT_RUN_MEMORY_LIMIT, no swap, CODE_AGENT_MAX_PROCESSES). auto: cgroup v2 with the memory and pids controllers delegated to the agent's cgroup, else cgroup v1 memory and pids below the agent's own cgroups, else the per-process fallback (fewer processes). required: v2 or v1, else no code runs. v2, v1: only that version, else no code runs. off: the per-process fallback. The start-up log says which is in use.",
  }),
  maxProcesses: envVar({
    name: 'CODE_AGENT_MAX_PROCESSES',
    schema: positiveIntSchema.default(32),
    description:
      "Processes and threads a run may have (RLIMIT_NPROC, per sandbox user, and the run cgroup's pids.max): a fork bomb stops there. Without a cgroup the per-process fallback may lower it.",
  }),
  maxFileBytes: envVar({
    name: 'CODE_AGENT_MAX_FILE_SIZE',
    schema: byteSizeSchema.prefault('16mb'),
    description: 'Largest file a run may write (RLIMIT_FSIZE; bytes, or 512kb, 16mb…).',
  }),
  maxOutputBytes: envVar({
    name: 'CODE_AGENT_MAX_OUTPUT',
    schema: byteSizeSchema.prefault('1mb'),
    description:
      'stdout and stderr kept per run, each (bytes, or 64kb, 1mb…); a program that prints more is killed and its output cut there.',
  }),
  tmpBytes: envVar({
    name: 'CODE_AGENT_TMP_SIZE',
    schema: byteSizeSchema.prefault('64mb'),
    description: "Size of a run's private in-memory /tmp.",
  }),
  workRoot: envVar({
    name: 'CODE_AGENT_WORK_ROOT',
    schema: z.string().min(1).optional(),
    description:
      'Host directory under which each run gets its own work directory (mounted at /work, removed after the run).',
    defaultText: "the system's temporary directory",
  }),
  firstUid: envVar({
    name: 'CODE_AGENT_SANDBOX_FIRST_UID',
    schema: positiveIntSchema.default(61000),
    description:
      'When the agent runs as root: the first of the unprivileged user ids runs switch to (one per concurrent run, via setpriv), so the process limit holds. Pick ids no real user has.',
  }),
  maxConcurrentRuns: envVar({
    name: 'CODE_AGENT_MAX_CONCURRENT_RUNS',
    schema: positiveIntSchema.max(64, 'expected at most 64').default(4),
    description: 'Programs running at once; a run beyond that fails as busy (retryable).',
  }),
  maxAttempts: envVar({
    name: 'CODE_AGENT_MAX_ATTEMPTS',
    schema: positiveIntSchema.max(5, 'expected at most 5').default(2),
    description:
      'Programs tried per task: the first, plus LLM fixes of a failed one (each fix is approved again). 1 turns fixing off; offline there are no fixes.',
  }),
  approvalTtlSeconds: envVar({
    name: 'CODE_AGENT_APPROVAL_TTL_SECONDS',
    schema: positiveIntSchema.default(900),
    description:
      "How long a request to run code stays valid (the approval's expiresAt); a later approval runs nothing.",
  }),
  ...llmEnv,
  ...redisEnv,
  ...telemetryEnv,
  ...runtimeEnv,
} as const;

/** The code agent's typed configuration. */
export type CodeAgentConfig = ConfigOf<typeof configSpec>;

/** The sandbox limits the configuration sets. */
export function sandboxLimits(config: CodeAgentConfig): SandboxLimits {
  return {
    wallClockMs: config.timeoutMs,
    cpuSeconds: config.cpuSeconds,
    memoryBytes: config.memoryBytes,
    runMemoryBytes: config.runMemoryBytes,
    maxProcesses: config.maxProcesses,
    maxFileBytes: config.maxFileBytes,
    maxOutputBytes: config.maxOutputBytes,
    tmpBytes: config.tmpBytes,
  };
}

/**
 * Loads the code agent's configuration; the only place it reads the environment (CONTRIBUTING.md
 * convention 15). CODE_AGENT_URL, the public URL's earlier name, is still read, with a deprecation
 * warning (`options.onDeprecated`).
 *
 * @example
 * const config = loadCodeAgentConfig({ FLEET_INTERNAL_TOKEN: 'x'.repeat(16) });
 */
export function loadCodeAgentConfig(
  environment: Environment = process.env,
  options: LoadConfigOptions = {},
): CodeAgentConfig {
  return loadConfig(configSpec, environment, options);
}
