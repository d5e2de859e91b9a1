import type { A2AClient } from '@fleet/a2a/client';
import type { SessionStore } from '@fleet/sessions';
import {
  buildGateway,
  createTestSessions,
  TEST_KEY,
  type TestGateway,
  type TestSessions,
} from './build-gateway';
import { serve, type Served } from './serve';

/** What the `ask` tool's tests run against: a gateway served over HTTP, its sessions, an orchestrator double. */
export interface McpAskGateway<O> {
  sessions: TestSessions;
  orchestrator: O;
  gateway: TestGateway;
  served: Served;
  /** The gateway's `/mcp`. */
  url(): URL;
  /** The `Authorization` header of `key`. */
  headers(key?: string): Record<string, string>;
  close(): Promise<void>;
}

/**
 * Serves a gateway (offline upstream, real Redis sessions) whose orchestrator is the double
 * `startOrchestrator` starts on the same session store, signing MCP request states with
 * `stateKey`.
 *
 * @example
 * const ask = await startMcpAskGateway(startScriptedSessionOrchestrator, STATE_KEY);
 */
export async function startMcpAskGateway<O extends { client: A2AClient; close(): Promise<void> }>(
  startOrchestrator: (store: SessionStore) => Promise<O>,
  stateKey: Buffer,
): Promise<McpAskGateway<O>> {
  const sessions = createTestSessions();
  const orchestrator = await startOrchestrator(sessions.store);
  const gateway = await buildGateway({
    upstream: 'offline',
    sessions,
    overrides: { orchestratorClient: orchestrator.client, mcp: { stateKey } },
  });
  const served = await serve(gateway.app);
  return {
    sessions,
    orchestrator,
    gateway,
    served,
    url: () => new URL(`${served.url}/mcp`),
    headers: (key = TEST_KEY) => ({ Authorization: `Bearer ${key}` }),
    async close() {
      await served.close();
      await orchestrator.close();
      await gateway.close();
    },
  };
}
