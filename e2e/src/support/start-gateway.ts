import path from 'node:path';
import { getFreePort, startProcess, type RunningProcess } from '@fleet/testing';

/** The repository root, from e2e/src/support or e2e/dist/support. */
export const REPO_ROOT = path.resolve(__dirname, '../../..');

/** The key every e2e gateway accepts (tenant `e2e`). */
export const E2E_KEY = 'sk-e2e-0123456789abcdef';

/** A gateway process started for a test. */
export interface RunningGateway {
  url: string;
  /** `url + '/v1'`, for `new OpenAI({ baseURL })`. */
  baseURL: string;
  process: RunningProcess;
  stop(): Promise<number | null>;
}

/**
 * Starts the built gateway (`services/gateway/dist/main.js`) as its own process on a free port and
 * waits for `/readyz`. Variables from the developer's shell that would change its behaviour are
 * cleared, so tests see only what they pass.
 */
export async function startGateway(
  env: Record<string, string | undefined> = {},
): Promise<RunningGateway> {
  const port = await getFreePort();
  const url = `http://127.0.0.1:${port}`;
  const running = await startProcess({
    name: 'gateway',
    args: ['--enable-source-maps', path.join(REPO_ROOT, 'services/gateway/dist/main.js')],
    env: {
      OPENAI_API_KEY: undefined,
      OPENAI_BASE_URL: undefined,
      OTEL_EXPORTER_OTLP_ENDPOINT: undefined,
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: undefined,
      GATEWAY_API_KEYS: `${E2E_KEY}:e2e`,
      // Suites share tenant e2e in one Redis; rate-limits.test.ts turns the limits on.
      GATEWAY_LIMITS: 'false',
      LOG_LEVEL: 'warn',
      ...env,
      GATEWAY_PORT: String(port),
    },
    readyUrl: `${url}/readyz`,
    timeoutMs: 20_000,
  });
  return {
    url,
    baseURL: `${url}/v1`,
    process: running,
    stop: () => running.stop('SIGTERM', 5_000),
  };
}
