import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import {
  dataPart,
  findData,
  orchestrateRequestSchema,
  partsText,
  textPart,
  type OrchestrateRequest,
  type Part,
  type AgentListing,
  type ProgressEvent,
} from '@fleet/a2a';
import { A2AClient } from '@fleet/a2a/client';
import {
  buildAgentCard,
  createA2AHandler,
  InMemoryTaskStore,
  type AgentContext,
  type AgentEvent,
} from '@fleet/a2a/server';
import type { Task } from '@fleet/a2a';
import { a2aRouter } from '@fleet/a2a/server/express';

/** The token the double and its clients share. */
export const DOUBLE_TOKEN = 'internal-token-0123456789';

/** One message the double received. */
export interface DoubleCall {
  taskId: string;
  text: string;
  input: OrchestrateRequest | undefined;
  /** Every part of the message, as received (text, data and file parts). */
  parts: Part[];
}

/** The orchestrator's side of the contract, scripted per test. */
export type DoubleExecute = (
  context: AgentContext,
  call: DoubleCall,
) => AsyncGenerator<AgentEvent, void, undefined>;

/** A running orchestrator double. */
export interface OrchestratorDouble {
  /** Its base URL (`ORCHESTRATOR_URL`). */
  url: string;
  /** A client for the gateway (`orchestratorClient`). */
  client: A2AClient;
  /** Every message received, in order. */
  calls: DoubleCall[];
  /** Resolves with the first call that matches, received already or still to come. */
  waitForCall(match: (call: DoubleCall) => boolean): Promise<DoubleCall>;
  /** Puts a task into the double's store as it stands, running nowhere (a dead replica's). */
  saveTask(task: Task): Promise<void>;
  close(): Promise<void>;
}

/**
 * The double's task store: one process, so a turn runs nowhere but here, and a task whose record
 * says WORKING while no turn of it runs here has lost its turn (its lease reads as lapsed). That
 * lets the orchestrator's take-over of lost turns (`lostTurns: 'take-over'`) be played here.
 */
class OneProcessTaskStore extends InMemoryTaskStore {
  holdTurn(): Promise<void> {
    return Promise.resolve();
  }
  releaseTurn(): Promise<void> {
    return Promise.resolve();
  }
  turnHeld(): Promise<boolean> {
    return Promise.resolve(false);
  }
}

/** A status update carrying a progress event and its readable line, as the orchestrator sends them. */
export function progressStatus(line: string, event: ProgressEvent, sessionId: string): AgentEvent {
  const parts: Part[] = [textPart(line), dataPart({ progress: event })];
  return { type: 'status', state: 'TASK_STATE_WORKING', message: parts, metadata: { sessionId } };
}

/** Options for {@link startOrchestratorDouble}. */
export interface OrchestratorDoubleOptions {
  /** The double's SSE keep-alive interval; 0 sends none. @default 15000, as every fleet service */
  keepAliveMs?: number;
  /** The client's `timeoutMs`: time to headers, then longest silence on a stream. @default 60000 */
  clientTimeoutMs?: number;
  /**
   * What `GET /internal/agents` (bearer {@link DOUBLE_TOKEN}) lists, as the orchestrator would.
   * @default no agents
   */
  agents?: AgentListing['agents'];
}

/**
 * Starts a small A2A agent (built with `@fleet/a2a/server`) standing in for the orchestrator: the
 * gateway's side is what is under test; the real orchestrator runs in e2e/.
 */
export async function startOrchestratorDouble(
  execute: DoubleExecute,
  { keepAliveMs, clientTimeoutMs, agents = [] }: OrchestratorDoubleOptions = {},
): Promise<OrchestratorDouble> {
  const calls: DoubleCall[] = [];
  const waiters: { match: (call: DoubleCall) => boolean; resolve: (call: DoubleCall) => void }[] =
    [];
  const app = express();
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const card = buildAgentCard({
    name: 'orchestrator',
    description: 'double',
    version: '0',
    url,
    skills: [],
  });
  const store = new OneProcessTaskStore();
  const handler = createA2AHandler({
    card,
    store,
    // As the orchestrator: a run does not belong to the stream that started it, and a task whose
    // orchestrator died is taken over by a resume sent to it.
    cancelOnDisconnect: false,
    lostTurns: 'take-over',
    execute: (context) => {
      const call: DoubleCall = {
        taskId: context.taskId,
        text: partsText(context.message.parts),
        input: findData(context.message.parts, orchestrateRequestSchema)?.fleet,
        parts: context.message.parts,
      };
      calls.push(call);
      for (const waiter of [...waiters]) {
        if (!waiter.match(call)) continue;
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(call);
      }
      return execute(context, call);
    },
  });
  app.get('/internal/agents', (req, res) => {
    if (req.get('authorization') !== `Bearer ${DOUBLE_TOKEN}`) {
      res.status(401).json({ error: { code: 'UNAUTHENTICATED', message: 'token' } });
      return;
    }
    const listing: AgentListing = { agents };
    res.json(listing);
  });
  app.use(
    a2aRouter({
      handler,
      internalToken: DOUBLE_TOKEN,
      ...(keepAliveMs === undefined ? {} : { keepAliveMs }),
    }),
  );
  return {
    url,
    client: new A2AClient({
      url: `${url}/a2a`,
      token: DOUBLE_TOKEN,
      maxRetries: 0,
      ...(clientTimeoutMs === undefined ? {} : { timeoutMs: clientTimeoutMs }),
    }),
    calls,
    waitForCall(match) {
      const seen = calls.find(match);
      if (seen !== undefined) return Promise.resolve(seen);
      return new Promise((resolve) => waiters.push({ match, resolve }));
    },
    async saveTask(task) {
      await store.save({ task, version: 1 }, { expectedVersion: 0 });
    },
    async close() {
      await handler.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A promise with its resolver, for gating a scripted run from the test. */
export function gate(): { promise: Promise<void>; open: () => void } {
  let open: () => void = () => undefined;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}
