import { ServiceUnavailableError } from '@fleet/errors';
import type { RunnerConfig } from './config';
import type { FleetPaths } from './paths';
import { readSecrets } from './secrets';
import { readState } from './state-file';
import { isServiceRunning } from './stop-fleet';

/** The service name of the RAG agent in the runner's table. */
export const RAG_AGENT = 'rag-agent';

/** Where the RAG agent listens and the token it takes. */
export interface RagAgentTarget {
  /** Its base URL (JSON-RPC at `<url>/a2a`). */
  url: string;
  token: string;
}

/** Options for {@link resolveRagAgent}. */
export interface ResolveRagAgentOptions {
  config: RunnerConfig;
  paths: FleetPaths;
  /** An explicit base URL (`--url`); otherwise the agent `fleet up` started. */
  url?: string | undefined;
}

/**
 * Finds the running RAG agent: `--url`, else the one in `.fleet/state.json`; and the internal
 * token: `FLEET_INTERNAL_TOKEN`, else the one `fleet up` generated into `.fleet/secrets.json`.
 *
 * @throws ServiceUnavailableError saying how to start the agent or where the token comes from.
 */
export async function resolveRagAgent({
  config,
  paths,
  url,
}: ResolveRagAgentOptions): Promise<RagAgentTarget> {
  let base = url?.replace(/\/+$/, '');
  if (base === undefined) {
    const state = await readState(paths.stateFile);
    const service = state?.services.find((entry) => entry.name === RAG_AGENT);
    if (service === undefined) {
      throw new ServiceUnavailableError(
        'The RAG agent is not running. Start the fleet with `pnpm fleet up` (or pass --url <its base URL>).',
      );
    }
    if (!isServiceRunning(service)) {
      throw new ServiceUnavailableError(
        `The RAG agent (pid ${service.pid}) has stopped. See \`pnpm fleet logs ${RAG_AGENT}\`, then \`pnpm fleet down && pnpm fleet up\`.`,
      );
    }
    base = service.url;
  }
  const token = config.internalToken ?? (await readSecrets(paths.secretsFile))?.internalToken;
  if (token === undefined) {
    throw new ServiceUnavailableError(
      'No internal token: set FLEET_INTERNAL_TOKEN to the one the RAG agent was started with, or start the fleet with `pnpm fleet up` (which generates one).',
    );
  }
  return { url: base, token };
}
