import { createServer } from 'node:http';
import express from 'express';
import { AGENT_CARD_PATH, AgentCard, taskStateToJSON } from '@a2a-js/sdk';
import {
  DefaultRequestHandler,
  InMemoryTaskStore,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import { listen } from '../internal/listen';
import { trackSockets } from '../internal/track-sockets';
import { Waiters } from '../internal/waiters';
import { sdkData, sdkText } from './sdk-events';

/** A skill an SDK agent's card declares: what the fleet's planner matches a request against. */
export interface SdkSkill {
  id: string;
  /** @default the id */
  name?: string;
  /** @default the id */
  description?: string;
  tags?: string[];
  examples?: string[];
}

/** One message an SDK agent received (a new task, or a continuation of one). */
export interface SdkAgentRequest {
  taskId: string;
  contextId: string;
  /** The message's id: the fleet's continuations have stable ones (`fleet-decision-…`). */
  messageId: string;
  /** The text parts, joined with newlines. */
  text: string;
  /** The fleet's node input, the data part `{ fleet: … }`, when the orchestrator sent one. */
  fleet: Record<string, unknown> | undefined;
  /** True when the message continues a task that exists. */
  isContinuation: boolean;
  /** The task's state when the message arrived (`TASK_STATE_AUTH_REQUIRED`, …), for continuations. */
  taskState: string | undefined;
  receivedAt: number;
}

/** Options for {@link startSdkAgent}. */
export interface StartSdkAgentOptions {
  /** The card's name: what plans call the agent. */
  name: string;
  /** The card's description (the planner reads it, weakly). */
  description: string;
  skills: SdkSkill[];
  /** The agent's logic, an `@a2a-js/sdk` executor. */
  executor: AgentExecutor;
  /** When set, JSON-RPC calls must carry `Authorization: Bearer <token>` (the card stays public). */
  token?: string;
  /**
   * Serve `GET /healthz` (200). The SDK has no such route; the fleet's orchestrator drops an
   * agent whose `/healthz` does not answer 200, so agents meant for the fleet serve one.
   * @default true
   */
  healthz?: boolean;
  /**
   * Advertise `capabilities.streaming`. Without it the SDK refuses `SendStreamingMessage` and
   * answers only the blocking `SendMessage`. @default true
   */
  streaming?: boolean;
  /**
   * Where the card is served. `.well-known/agent.json` is the path of A2A v0.2 servers (and of
   * some SDKs still). @default '.well-known/agent-card.json' (the SDK's AGENT_CARD_PATH)
   */
  cardPath?: string;
  /**
   * `capabilities.extensions` of the card (A2A v1.0 `AgentExtension`s as wire JSON), e.g. the
   * fleet's availability extension. @default none
   */
  extensions?: {
    uri: string;
    description?: string | undefined;
    required?: boolean | undefined;
    params?: unknown;
  }[];
  /** @default 0 (a free port) */
  port?: number;
  /** @default '127.0.0.1' */
  host?: string;
}

/** A running SDK agent. */
export interface SdkAgent {
  name: string;
  /** Base URL: the card is at `/.well-known/agent-card.json` (see `cardPath`), JSON-RPC at `/a2a`. */
  url: string;
  /** The card as the SDK serves it. */
  card: AgentCard;
  /** Every message received, oldest first. */
  requests: SdkAgentRequest[];
  /** Resolves with the requests once at least `count` arrived. @default timeoutMs 10000 */
  waitForRequests(count: number, timeoutMs?: number): Promise<SdkAgentRequest[]>;
  stop(): Promise<void>;
}

/**
 * Starts an A2A agent built only on `@a2a-js/sdk` 1.3 — `DefaultRequestHandler`,
 * `InMemoryTaskStore`, `agentCardHandler` and `jsonRpcHandler` on express, none of the fleet's
 * server code — on a free loopback port. It stands in for an agent someone else wrote, added to
 * the fleet with AGENT_URLS. Every message it receives is recorded in `requests` before the
 * executor sees it.
 *
 * @example
 * const invoices = createInvoiceExecutor();
 * const agent = await startSdkAgent({ ...INVOICE_AGENT_CARD, executor: invoices, token });
 * // AGENT_URLS=agent.url; later: invoices.payments.length
 */
export async function startSdkAgent({
  name,
  description,
  skills,
  executor,
  token,
  healthz = true,
  streaming = true,
  cardPath = AGENT_CARD_PATH,
  extensions,
  port = 0,
  host = '127.0.0.1',
}: StartSdkAgentOptions): Promise<SdkAgent> {
  const requests: SdkAgentRequest[] = [];
  const waiters = new Waiters();
  const app = express();
  const server = createServer(app);
  const closeServer = trackSockets(server);
  const { url } = await listen(server, { port, host });
  const card = AgentCard.fromJSON({
    name,
    description,
    version: '1.0.0',
    supportedInterfaces: [
      { url: `${url}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    ],
    capabilities: { streaming, ...(extensions === undefined ? {} : { extensions }) },
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: ['text/plain', 'application/json'],
    skills: skills.map((skill) => ({
      id: skill.id,
      name: skill.name ?? skill.id,
      description: skill.description ?? skill.id,
      tags: skill.tags ?? [],
      examples: skill.examples ?? [],
    })),
  });

  const recording: AgentExecutor = {
    execute(context: RequestContext, bus: ExecutionEventBus): Promise<void> {
      const message = context.userMessage;
      const fleet = sdkData(message.parts, 'fleet');
      const state = context.task?.status?.state;
      requests.push({
        taskId: context.taskId,
        contextId: context.contextId,
        messageId: message.messageId,
        text: sdkText(message.parts),
        fleet:
          typeof fleet === 'object' && fleet !== null
            ? (fleet as Record<string, unknown>)
            : undefined,
        isContinuation: context.task !== undefined,
        taskState: state === undefined ? undefined : taskStateToJSON(state),
        receivedAt: Date.now(),
      });
      waiters.notify();
      return executor.execute(context, bus);
    },
    cancelTask: (taskId, bus) => executor.cancelTask(taskId, bus),
  };

  const requestHandler = new DefaultRequestHandler(card, new InMemoryTaskStore(), recording);
  if (healthz) {
    app.get('/healthz', (_req, res) => {
      res.json({ status: 'ok' });
    });
  }
  app.use(`/${cardPath}`, agentCardHandler({ agentCardProvider: requestHandler }));
  if (token !== undefined) {
    app.use('/a2a', (req, res, next) => {
      if (req.get('authorization') === `Bearer ${token}`) next();
      else res.status(401).json({ error: { code: 'UNAUTHENTICATED', message: 'token needed' } });
    });
  }
  app.use('/a2a', jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));

  return {
    name,
    url,
    card,
    requests,
    waitForRequests: (count, timeoutMs = 10_000) =>
      waiters.waitFor({
        produce: () => (requests.length >= count ? [...requests] : undefined),
        timeoutMs,
        describe: () => `${count} requests to ${name} (got ${requests.length})`,
      }),
    stop: async () => {
      waiters.rejectAll(new Error(`${name} stopped`));
      await closeServer();
    },
  };
}
