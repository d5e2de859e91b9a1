/**
 * An A2A agent of your own, built only on `@a2a-js/sdk` and express, that the fleet's orchestrator
 * plans with: it converts kilometres to miles. Start it, then add its URL to the orchestrator's
 * AGENT_URLS (`pnpm fleet up` reads AGENT_URLS too); the planner reads its card's skill.
 *
 * Run: PORT=4200 AGENT_TOKEN=<the fleet's FLEET_INTERNAL_TOKEN> pnpm --filter @fleet/examples a2a-agent
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
} from '@a2a-js/sdk';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';
import type { AgentExecutor, ExecutionEventBus, RequestContext } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, UserBuilder } from '@a2a-js/sdk/server/express';

const port = Number(process.env['PORT'] ?? 4200);
const publicUrl = process.env['PUBLIC_URL'] ?? `http://127.0.0.1:${port}`;
const token = process.env['AGENT_TOKEN']; // the fleet's bearer token; unset: no check

// The card: the planner chooses agents by their skills' names, descriptions, tags and examples.
const card = AgentCard.fromJSON({
  name: 'unit-converter',
  description: 'Converts distances from kilometres to miles.',
  version: '1.0.0',
  supportedInterfaces: [
    { url: `${publicUrl}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
  ],
  capabilities: { streaming: true },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [
    {
      id: 'km-to-miles',
      name: 'Kilometres to miles',
      description: 'Converts a distance in kilometres to miles.',
      tags: ['units', 'distance'],
      examples: ['How many miles is 42 km?'],
    },
  ],
});

/** The answer to a task: the distance its text names, in miles. */
function convert(parts: RequestContext['userMessage']['parts']): string {
  const text = parts.map((part) => (part.content?.$case === 'text' ? part.content.value : ''));
  const km = Number(/(\d+(?:\.\d+)?)\s*km/i.exec(text.join(' '))?.[1]);
  return Number.isNaN(km)
    ? 'Name a distance in km.'
    : `${km} km is ${(km * 0.621371).toFixed(2)} miles.`;
}

class ConverterExecutor implements AgentExecutor {
  execute(
    { taskId, contextId, userMessage }: RequestContext,
    bus: ExecutionEventBus,
  ): Promise<void> {
    // A turn publishes the task first, then its `result` artifact (the text the fleet composes its
    // answer from), then its final state.
    const status = (state: string) => ({ state, timestamp: new Date().toISOString() });
    const history = [Message.toJSON(userMessage)];
    const task = { id: taskId, contextId, status: status('TASK_STATE_SUBMITTED'), history };
    bus.publish(AgentEvent.task(Task.fromJSON(task)));
    const text = convert(userMessage.parts);
    const artifact = { artifactId: randomUUID(), name: 'result', parts: [{ text }] };
    const update = { taskId, contextId, lastChunk: true, artifact };
    bus.publish(AgentEvent.artifactUpdate(TaskArtifactUpdateEvent.fromJSON(update)));
    const done = { taskId, contextId, status: status('TASK_STATE_COMPLETED') };
    bus.publish(AgentEvent.statusUpdate(TaskStatusUpdateEvent.fromJSON(done)));
    return Promise.resolve();
  }
  cancelTask(): Promise<void> {
    return Promise.resolve(); // every turn ends at once: nothing is left to cancel
  }
}

const requestHandler = new DefaultRequestHandler(
  card,
  new InMemoryTaskStore(),
  new ConverterExecutor(),
);
const app = express();
app.get('/healthz', (_request, response) => void response.json({ status: 'ok' }));
app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: requestHandler }));
// The fleet sends its internal token as a bearer token: check it before the A2A handler.
app.use('/a2a', (request, response, next) => {
  const allowed = token === undefined || request.get('authorization') === `Bearer ${token}`;
  if (allowed) next();
  else response.status(401).json({ error: { code: 'UNAUTHENTICATED', message: 'Bearer token.' } });
});
app.use('/a2a', jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
app.listen(port, () => console.log(`unit-converter agent listening on ${publicUrl}`));
