/**
 * An invoice agent for the fleet, built only on @a2a-js/sdk 1.3 and express.
 *
 * It asks a person before it pays: a new task ends in TASK_STATE_AUTH_REQUIRED with the fleet's
 * approval data part; the decision arrives as the next message of the same task. It pays at most
 * once per decision message, so a decision delivered again (same messageId) pays nothing more.
 *
 * Run it:   PORT=4100 AGENT_TOKEN=<the fleet's FLEET_INTERNAL_TOKEN> node invoice-agent.js
 * Add it:   AGENT_URLS=...,http://127.0.0.1:4100 for the orchestrator
 */
import { randomUUID } from 'node:crypto';
import express from 'express';
import {
  AGENT_CARD_PATH,
  AgentCard,
  Message,
  Task,
  TaskArtifactUpdateEvent,
  TaskStatusUpdateEvent,
  type Part,
} from '@a2a-js/sdk';
import {
  AgentEvent,
  DefaultRequestHandler,
  InMemoryTaskStore,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, UserBuilder } from '@a2a-js/sdk/server/express';

const PORT = Number(process.env['PORT'] ?? 4100);
/** Where the fleet reaches this agent: the card names it. */
const PUBLIC_URL = process.env['PUBLIC_URL'] ?? `http://127.0.0.1:${PORT}`;
/** The bearer token the fleet sends (its FLEET_INTERNAL_TOKEN); unset: no check. */
const TOKEN = process.env['AGENT_TOKEN'];

// The card: the planner reads the skill's name, tags, examples and description.
const card = AgentCard.fromJSON({
  name: 'invoice-payer',
  description: 'Pays supplier invoices from the company account, after a person approves.',
  version: '1.0.0',
  supportedInterfaces: [
    { url: `${PUBLIC_URL}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
  ],
  capabilities: { streaming: true },
  defaultInputModes: ['text/plain', 'application/json'],
  defaultOutputModes: ['text/plain'],
  skills: [
    {
      id: 'pay-invoice',
      name: 'Pay invoice',
      description: 'Pays a supplier invoice by its number, once a person approves.',
      tags: ['invoice', 'payment'],
      examples: ['Pay invoice INV-1001 (€950)'],
    },
  ],
});

// What the agent has paid, by the id of the message that approved it. Keep this where the
// payment is recorded (the same database transaction) so that it survives a restart.
const paidByMessage = new Map<string, string>();

function textOf(parts: readonly Part[]): string {
  return parts.map((part) => (part.content?.$case === 'text' ? part.content.value : '')).join('\n');
}

/** The value under `key` in the first data part that has it. */
function dataOf(parts: readonly Part[], key: string): unknown {
  for (const part of parts) {
    const value: unknown = part.content?.$case === 'data' ? part.content.value : undefined;
    if (typeof value === 'object' && value !== null && key in value) {
      return (value as Record<string, unknown>)[key];
    }
  }
  return undefined;
}

/** A status update; `parts` (v1.0 wire JSON) become the status message. */
function status(context: RequestContext, state: string, parts?: object[]) {
  const { taskId, contextId } = context;
  return AgentEvent.statusUpdate(
    TaskStatusUpdateEvent.fromJSON({
      taskId,
      contextId,
      status: {
        state,
        timestamp: new Date().toISOString(),
        ...(parts && {
          message: { messageId: randomUUID(), role: 'ROLE_AGENT', taskId, contextId, parts },
        }),
      },
    }),
  );
}

/** The `result` artifact: the fleet puts its text into the answer. */
function result(context: RequestContext, text: string) {
  return AgentEvent.artifactUpdate(
    TaskArtifactUpdateEvent.fromJSON({
      taskId: context.taskId,
      contextId: context.contextId,
      lastChunk: true,
      artifact: { artifactId: randomUUID(), name: 'result', parts: [{ text }] },
    }),
  );
}

class InvoiceExecutor implements AgentExecutor {
  execute(context: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { task, userMessage } = context;
    // Every turn begins with the task: on a continuation, the stored task (still AUTH_REQUIRED).
    bus.publish(
      AgentEvent.task(
        task ??
          Task.fromJSON({
            id: context.taskId,
            contextId: context.contextId,
            status: { state: 'TASK_STATE_SUBMITTED', timestamp: new Date().toISOString() },
            history: [Message.toJSON(userMessage)],
          }),
      ),
    );
    // The first message of the task says what to pay; the fleet's node input rides beside it.
    const first = task?.history?.[0] ?? userMessage;
    const request = textOf(first.parts);
    const invoice = /\bINV-\d+\b/.exec(request)?.[0];
    const amount = /€\s?\d[\d.]*/.exec(request)?.[0] ?? 'the amount due';
    const fleet = dataOf(first.parts, 'fleet') as { sessionId?: string } | undefined;

    if (invoice === undefined) {
      bus.publish(status(context, 'TASK_STATE_REJECTED', [{ text: 'Which invoice? Name it.' }]));
      return Promise.resolve();
    }
    if (task === undefined) {
      // Ask first. The data part is the fleet's approval convention; the text is for everyone else.
      const summary = `Pay invoice ${invoice} (${amount}) to ACME GmbH`;
      bus.publish(
        status(context, 'TASK_STATE_AUTH_REQUIRED', [
          { text: `${summary}?` },
          {
            data: {
              approval: {
                action: 'pay-invoice',
                summary,
                preview: `Invoice ${invoice}\nPayee: ACME GmbH\nAmount: ${amount}`,
                risk: 'Money leaves the company account',
              },
            },
            mediaType: 'application/json',
          },
        ]),
      );
      return Promise.resolve();
    }

    // The continuation: the person's decision, as a data part (and as text: "Approved." / "Denied. …").
    const decision = dataOf(userMessage.parts, 'approvalDecision') as
      { decision?: string; instructions?: string } | undefined;
    if (decision?.decision !== 'approve') {
      const reason = decision?.instructions ?? 'no reason given';
      bus.publish(status(context, 'TASK_STATE_REJECTED', [{ text: `Not paid: ${reason}.` }]));
      return Promise.resolve();
    }
    bus.publish(status(context, 'TASK_STATE_WORKING'));
    // Exactly once: a decision message seen before is not paid again.
    let reference = paidByMessage.get(userMessage.messageId);
    if (reference === undefined) {
      reference = `PAY-${paidByMessage.size + 1}`;
      paidByMessage.set(userMessage.messageId, reference);
      console.log(`paid ${invoice} ${amount} ${reference} session=${fleet?.sessionId ?? '-'}`);
    }
    bus.publish(result(context, `Paid invoice ${invoice} (${amount}), reference ${reference}.`));
    bus.publish(status(context, 'TASK_STATE_COMPLETED'));
    return Promise.resolve();
  }

  cancelTask(taskId: string, bus: ExecutionEventBus): Promise<void> {
    bus.publish(
      AgentEvent.statusUpdate(
        TaskStatusUpdateEvent.fromJSON({
          taskId,
          status: { state: 'TASK_STATE_CANCELED', timestamp: new Date().toISOString() },
        }),
      ),
    );
    return Promise.resolve();
  }
}

const requestHandler = new DefaultRequestHandler(
  card,
  new InMemoryTaskStore(),
  new InvoiceExecutor(),
);
const app = express();
// The orchestrator checks this with every card refresh, and leaves out an agent that fails it.
app.get('/healthz', (_req, res) => {
  res.json({ status: 'ok' });
});
app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: requestHandler }));
app.use('/a2a', (req, res, next) => {
  if (TOKEN === undefined || req.get('authorization') === `Bearer ${TOKEN}`) next();
  else
    res.status(401).json({ error: { code: 'UNAUTHENTICATED', message: 'Bearer token needed.' } });
});
app.use('/a2a', jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
app.listen(PORT, () => {
  console.log(`invoice agent listening on ${PUBLIC_URL}`);
});
