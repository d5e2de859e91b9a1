import express from 'express';
import type { AgentExtension } from '@fleet/a2a';
import type { AgentContext, AgentEvent, AgentExecute } from '@fleet/a2a/server';
import { buildAgentCard, createA2AHandler, InMemoryTaskStore } from '@fleet/a2a/server';
import { a2aRouter } from '@fleet/a2a/server/express';
import { startServer, type RunningServer } from '@fleet/http';
import { getFreePort } from '@fleet/testing';

/** Options for {@link startTestAgent}. */
export interface StartTestAgentOptions {
  /** The card name. */
  name: string;
  execute: AgentExecute;
  /** Required on `POST /a2a` when set. */
  token?: string;
  /** `GET /healthz` answers this status. @default 200 */
  healthStatus?: () => number;
  /** Serve only the legacy `/.well-known/agent.json`. @default false */
  legacyCardOnly?: boolean;
  /** False: only CancelTask stops a task, not its caller going away. @default true */
  cancelOnDisconnect?: boolean;
  /** The card's skills. @default one skill `work` */
  skills?: { id: string; name: string; description: string; tags?: string[] }[];
  /** The card's `capabilities.extensions` (e.g. the availability extension). @default none */
  extensions?: AgentExtension[];
}

/**
 * Starts one small A2A agent for a test, built with `@fleet/a2a/server` like the fleet's own
 * agents, on a free loopback port. Test-only (tests are the only callers).
 */
export async function startTestAgent({
  name,
  execute,
  token,
  healthStatus = () => 200,
  legacyCardOnly = false,
  cancelOnDisconnect = true,
  skills = [{ id: 'work', name: 'Work', description: 'does its work' }],
  extensions,
}: StartTestAgentOptions): Promise<RunningServer> {
  const port = await getFreePort();
  const built = buildAgentCard({
    name,
    description: `${name} (test agent)`,
    version: '0.0.1',
    url: `http://127.0.0.1:${port}`,
    internalToken: token !== undefined,
    skills,
  });
  const card =
    extensions === undefined
      ? built
      : { ...built, capabilities: { ...built.capabilities, extensions } };
  const handler = createA2AHandler({
    card,
    execute,
    store: new InMemoryTaskStore(),
    cancelOnDisconnect,
  });
  const app = express();
  app.get('/healthz', (_req, res) => {
    res.status(healthStatus()).json({ status: 'ok' });
  });
  if (legacyCardOnly) {
    app.get('/.well-known/agent-card.json', (_req, res) => {
      res.status(404).end();
    });
  }
  app.use(a2aRouter({ handler, ...(token === undefined ? {} : { internalToken: token }) }));
  const running = await startServer({ app, port, signals: [], shutdownTimeoutMs: 100 });
  return {
    ...running,
    shutdown: async (reason?: string) => {
      await running.shutdown(reason);
      await handler.close();
    },
  };
}

/** An agent that answers each task with the events `answer` returns (a throw fails the task). */
export function answering(answer: (context: AgentContext) => AgentEvent[]): AgentExecute {
  return async function* scripted(context) {
    await Promise.resolve();
    yield* answer(context);
  };
}
