import path from 'node:path';
import { getFreePort } from './get-free-port';
import { startProcess, type RunningProcess } from './start-process';

/** Options for {@link startService}. */
export interface StartServiceOptions {
  /** The repository root (services are found at `services/<name>/dist/main.js`). */
  root: string;
  /** The service's directory name: `gateway`, `orchestrator`, `planner`, `rag-agent`, … */
  name: string;
  /** Its configuration; the port variable is set by this helper. */
  env?: Record<string, string | undefined>;
  /** @default a free port */
  port?: number;
  /** @default 30000 */
  timeoutMs?: number;
  /** Extra arguments for `node`, before the script (e.g. `['--cpu-prof', '--cpu-prof-dir=/tmp/prof']`). */
  nodeArgs?: readonly string[] | undefined;
}

/** A fleet service running as its own process. */
export interface RunningService {
  name: string;
  /** `http://127.0.0.1:<port>` */
  url: string;
  port: number;
  process: RunningProcess;
  /** SIGTERM (graceful shutdown), SIGKILL after 10 s; resolves with the exit code. */
  stop(): Promise<number | null>;
}

/** `gateway` → `GATEWAY`, `rag-agent` → `RAG_AGENT`: the prefix of a service's variables. */
export function servicePrefix(name: string): string {
  return name.toUpperCase().replaceAll('-', '_');
}

/**
 * Starts a built fleet service as its own process on a free port (`<NAME>_PORT`) and waits until
 * it answers `/readyz`. Variables from the developer's shell that would change the fleet's
 * behaviour (the upstream LLM, trace export) are cleared unless `env` sets them, so a test sees
 * only what it passes.
 *
 * @example
 * const planner = await startService({ root, name: 'planner', env: { FLEET_INTERNAL_TOKEN: token } });
 */
export async function startService({
  root,
  name,
  env = {},
  port: requestedPort,
  timeoutMs = 30_000,
  nodeArgs = [],
}: StartServiceOptions): Promise<RunningService> {
  const port = requestedPort ?? (await getFreePort());
  const url = `http://127.0.0.1:${port}`;
  const running = await startProcess({
    name,
    args: [
      '--enable-source-maps',
      ...nodeArgs,
      path.join(root, 'services', name, 'dist', 'main.js'),
    ],
    env: {
      OPENAI_API_KEY: undefined,
      OPENAI_BASE_URL: undefined,
      OTEL_EXPORTER_OTLP_ENDPOINT: undefined,
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: undefined,
      LOG_LEVEL: 'warn',
      ...env,
      [`${servicePrefix(name)}_PORT`]: String(port),
    },
    readyUrl: `${url}/readyz`,
    timeoutMs,
  });
  return { name, url, port, process: running, stop: () => running.stop('SIGTERM', 10_000) };
}
