import { createServer } from 'node:http';
import express from 'express';
import {
  approvalDecisionSchema,
  dataPart,
  findData,
  nodeInputSchema,
  partsText,
  RESULT_ARTIFACT_NAME,
  textPart,
  type AgentCard,
  type ApprovalDecision,
  type Message,
  type NodeInput,
  type Part,
} from '@fleet/a2a';
import {
  buildAgentCard,
  createA2AHandler,
  InMemoryTaskStore,
  type AgentContext,
  type AgentEvent,
  type TaskStore,
} from '@fleet/a2a/server';
import { a2aRouter } from '@fleet/a2a/server/express';
import { delay } from '../internal/delay';
import { listen } from '../internal/listen';
import { trackSockets } from '../internal/track-sockets';
import { Waiters } from '../internal/waiters';

/** A skill the scripted agent's card declares. */
export interface ScriptedSkill {
  id: string;
  name?: string;
  description?: string;
  tags?: string[];
  examples?: string[];
}

/** What the scripted agent does with one turn. Everything is optional. */
export interface ScriptedAgentReply {
  /** The result text. @default `<name> handled: <task>` */
  text?: string;
  /** The result's structured output. @default `{ agent, task, dependencies: { id: summary } }` */
  data?: unknown;
  /** Time spent before answering (aborted early by a cancel). */
  latencyMs?: number;
  /** End the task as FAILED with this message instead of answering. */
  fail?: string;
  /** Ask for a person's approval: TASK_STATE_AUTH_REQUIRED with the fleet's approval data part. */
  approval?: {
    action: string;
    summary: string;
    preview?: string;
    risk?: 'low' | 'medium' | 'high';
  };
  /**
   * Ask a person a question (TASK_STATE_INPUT_REQUIRED with this text) on the first turn; the
   * continuation's text part is the answer (`request.text`).
   */
  question?: string;
  /**
   * Stream the result text as artifact chunks: these pieces, in order, each an `artifactUpdate` of
   * the `result` artifact with `append: true`, then a last chunk (`lastChunk: true`) with the data
   * part. The text is the pieces joined (`text` is then ignored).
   */
  chunks?: string[];
  /** Pause between chunks. @default 0 */
  chunkDelayMs?: number;
  /**
   * The model usage to report, as fleet agents do: `metadata.usage` on the result artifact
   * (docs/a2a.md §8, "Usage"). Absent: the agent says nothing about usage, like one outside the fleet.
   */
  usage?: Record<string, unknown>;
}

/** One turn the scripted agent received. */
export interface ScriptedAgentRequest {
  taskId: string;
  /** The text parts: the node's task. */
  text: string;
  /** The fleet node input (`{ fleet: … }` data part), when the orchestrator sent one. */
  nodeInput: NodeInput['fleet'] | undefined;
  /** The decision data part of a continuation (`{ approvalDecision: … }`). */
  approvalDecision: ApprovalDecision | undefined;
  isContinuation: boolean;
  message: Message;
  receivedAt: number;
  /** Set once the turn ended: how. */
  outcome?: 'completed' | 'failed' | 'auth-required' | 'input-required' | 'canceled';
}

/** Options for {@link startScriptedAgent}. */
export interface ScriptedAgentOptions {
  /** The agent's name (its card name; plans refer to it). */
  name: string;
  description?: string;
  /** @default one skill named after the agent */
  skills?: ScriptedSkill[];
  /** The same reply every turn (merged under `respond`'s answer). */
  reply?: ScriptedAgentReply;
  /** Chooses each turn's reply. */
  respond?: (request: ScriptedAgentRequest) => ScriptedAgentReply | Promise<ScriptedAgentReply>;
  /** Answer the first N calls with HTTP 503 before A2A sees them (a transient outage). */
  unavailableTimes?: number;
  /** Required bearer token (the fleet's internal token). */
  internalToken?: string;
  /** Keep every turn in `requests`; benchmarks turn it off. @default true */
  recordRequests?: boolean;
  /** Where tasks live: a `RedisTaskStore` lets replicas (or a restarted agent) share them. @default in memory */
  store?: TaskStore;
  /** @default 0 */
  port?: number;
  /** @default '127.0.0.1' */
  host?: string;
}

/** An approved action the agent carried out (at most once per task, via `claimOnce`). */
export interface ScriptedSideEffect {
  taskId: string;
  action: string;
  /** The task as carried out: the decision's `effectiveTask`, or the original task. */
  task: string;
  at: number;
}

/** A running scripted agent. */
export interface ScriptedAgent {
  name: string;
  /** Base URL: the card is at `/.well-known/agent-card.json`, JSON-RPC at `/a2a`. */
  url: string;
  card: AgentCard;
  requests: ScriptedAgentRequest[];
  /** Approved actions carried out, each at most once per task. */
  sideEffects: ScriptedSideEffect[];
  /** Resolves once at least `count` turns arrived. @default timeoutMs 10000 */
  waitForRequests(count: number, timeoutMs?: number): Promise<ScriptedAgentRequest[]>;
  close(): Promise<void>;
}

function defaultData(name: string, request: ScriptedAgentRequest): unknown {
  const dependencies = Object.fromEntries(
    Object.entries(request.nodeInput?.dependencyOutputs ?? {}).map(([id, output]) => [
      id,
      output.summary,
    ]),
  );
  return { agent: name, task: request.text, dependencies };
}

/**
 * Starts a real A2A agent (our `@fleet/a2a` server on a real port) that answers from a script: a
 * given latency, output, failure, approval request, or a transient outage. It follows the fleet's
 * conventions (node input in, `result` artifact out), so the orchestrator drives it like any agent.
 * Test-only, like the scripted LLM: it stands in for the real agents, never for fleet services.
 *
 * @example
 * const web = await startScriptedAgent({ name: 'web', skills: [{ id: 'search', tags: ['web'] }], reply: { latencyMs: 50 } });
 */
export async function startScriptedAgent({
  name,
  description = `Scripted agent ${name} (test double).`,
  skills = [{ id: name, name, description: `${name} skill`, tags: [name] }],
  reply = {},
  respond,
  unavailableTimes = 0,
  internalToken,
  recordRequests = true,
  store = new InMemoryTaskStore(),
  port = 0,
  host = '127.0.0.1',
}: ScriptedAgentOptions): Promise<ScriptedAgent> {
  const requests: ScriptedAgentRequest[] = [];
  const sideEffects: ScriptedSideEffect[] = [];
  const waiters = new Waiters();
  const app = express();
  const server = createServer(app);
  const closeServer = trackSockets(server);
  const { url } = await listen(server, { port, host });
  const card = buildAgentCard({
    name,
    description,
    version: '0.0.0-scripted',
    url,
    skills: skills.map((skill) => ({
      id: skill.id,
      name: skill.name ?? skill.id,
      description: skill.description ?? `${skill.id} (scripted)`,
      tags: skill.tags ?? [],
      examples: skill.examples ?? [],
    })),
    internalToken: internalToken !== undefined,
  });

  async function* execute(context: AgentContext): AsyncGenerator<AgentEvent> {
    const { message } = context;
    const request: ScriptedAgentRequest = {
      taskId: context.taskId,
      text: partsText(message.parts),
      nodeInput: findData(message.parts, nodeInputSchema)?.fleet,
      approvalDecision: findData(message.parts, approvalDecisionSchema)?.approvalDecision,
      isContinuation: context.isContinuation,
      message,
      receivedAt: Date.now(),
    };
    if (recordRequests) {
      requests.push(request);
      waiters.notify();
    }
    try {
      const answer: ScriptedAgentReply = { ...reply, ...(respond ? await respond(request) : {}) };
      yield { type: 'status', state: 'TASK_STATE_WORKING', message: `${name} is working on it.` };
      if (answer.latencyMs) await delay(answer.latencyMs, context.signal);
      if (answer.approval && !request.isContinuation) {
        request.outcome = 'auth-required';
        yield {
          type: 'status',
          state: 'TASK_STATE_AUTH_REQUIRED',
          message: [
            textPart(`${name} needs approval: ${answer.approval.summary}`),
            dataPart({
              approval: {
                risk: 'medium',
                preview: '',
                expiresAt: new Date(Date.now() + 120_000).toISOString(),
                ...answer.approval,
              },
            }),
          ],
        };
        return;
      }
      if (answer.question !== undefined && !request.isContinuation) {
        request.outcome = 'input-required';
        yield { type: 'status', state: 'TASK_STATE_INPUT_REQUIRED', message: answer.question };
        return;
      }
      if (request.approvalDecision?.decision === 'deny') {
        request.outcome = 'failed';
        yield {
          type: 'status',
          state: 'TASK_STATE_REJECTED',
          message: `Denied: ${request.approvalDecision.instructions ?? 'no reason given'}`,
        };
        return;
      }
      if (answer.approval && request.approvalDecision?.decision === 'approve') {
        // The approved action: claimed first, so a repeated continuation never does it twice.
        const task = request.approvalDecision.effectiveTask ?? request.text;
        if (await context.claimOnce(answer.approval.action)) {
          sideEffects.push({
            taskId: context.taskId,
            action: answer.approval.action,
            task,
            at: Date.now(),
          });
        }
      }
      if (answer.fail !== undefined) {
        request.outcome = 'failed';
        yield { type: 'status', state: 'TASK_STATE_FAILED', message: answer.fail };
        return;
      }
      if (answer.chunks !== undefined) {
        const artifactId = `result-${context.taskId}`;
        for (const [index, chunk] of answer.chunks.entries()) {
          if (index > 0 && answer.chunkDelayMs) await delay(answer.chunkDelayMs, context.signal);
          yield {
            type: 'artifact',
            artifact: { artifactId, name: RESULT_ARTIFACT_NAME, parts: [textPart(chunk)] },
            append: true,
            lastChunk: false,
          };
        }
        yield {
          type: 'artifact',
          artifact: {
            artifactId,
            name: RESULT_ARTIFACT_NAME,
            parts: [dataPart(answer.data ?? defaultData(name, request))],
            ...(answer.usage === undefined ? {} : { metadata: { usage: answer.usage } }),
          },
          append: true,
          lastChunk: true,
        };
      } else {
        const parts: Part[] = [
          textPart(answer.text ?? `${name} handled: ${request.text}`),
          dataPart(answer.data ?? defaultData(name, request)),
        ];
        yield {
          type: 'artifact',
          artifact: {
            name: RESULT_ARTIFACT_NAME,
            parts,
            ...(answer.usage === undefined ? {} : { metadata: { usage: answer.usage } }),
          },
          lastChunk: true,
        };
      }
      request.outcome = 'completed';
      waiters.notify();
      yield { type: 'status', state: 'TASK_STATE_COMPLETED' };
    } finally {
      if (context.signal.aborted && request.outcome === undefined) request.outcome = 'canceled';
    }
  }

  let unavailable = unavailableTimes;
  app.use((req, res, next) => {
    if (req.method === 'POST' && unavailable > 0) {
      unavailable -= 1;
      res.status(503).json({
        error: {
          code: 'SERVICE_UNAVAILABLE',
          message: `${name} is briefly unavailable (scripted).`,
        },
      });
      return;
    }
    next();
  });
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.use(
    a2aRouter({
      handler: createA2AHandler({ card, execute, store }),
      ...(internalToken === undefined ? {} : { internalToken }),
    }),
  );

  return {
    name,
    url,
    card,
    requests,
    sideEffects,
    waitForRequests: (count, timeoutMs = 10_000) =>
      waiters.waitFor({
        produce: () => (requests.length >= count ? [...requests] : undefined),
        timeoutMs,
        describe: () => `${count} requests to ${name} (got ${requests.length})`,
      }),
    close: async () => {
      waiters.rejectAll(new Error(`${name} closed`));
      await closeServer();
    },
  };
}
