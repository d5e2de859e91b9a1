import { describe, expect, it } from '@jest/globals';
import { silentLogger } from '@fleet/http';
import request from 'supertest';
import type { App } from 'supertest/types';
import { createMessage, textPart } from '../../schemas/helpers';
import type { AgentExecute } from '../agent';
import { buildAgentCard } from '../build-agent-card';
import { createA2AHandler } from '../create-a2a-handler';
import { InMemoryTaskStore } from '../in-memory-task-store';
import { createAgentApp } from './create-agent-app';

/** An agent whose turns wait until released, then end as the message asks. */
function gatedAgent() {
  const waiting: (() => void)[] = [];
  const execute: AgentExecute = async function* ({ message, signal }) {
    yield { type: 'status', state: 'TASK_STATE_WORKING' };
    await new Promise<void>((resolve) => {
      waiting.push(resolve);
      signal.addEventListener('abort', () => resolve());
    });
    const text = message.parts.map((part) => ('text' in part ? part.text : '')).join('');
    if (text === 'fail') throw new Error('asked to fail');
    if (text === 'ask') yield { type: 'status', state: 'TASK_STATE_INPUT_REQUIRED', message: '?' };
  };
  return { execute, release: () => waiting.splice(0).forEach((resolve) => resolve()) };
}

function createApp() {
  const agent = gatedAgent();
  const handler = createA2AHandler({
    card: buildAgentCard({
      name: 'metered-agent',
      description: 'd',
      version: '1',
      url: 'http://agent.test/',
      skills: [{ id: 's', name: 'S', description: 'skill' }],
    }),
    execute: agent.execute,
    store: new InMemoryTaskStore(),
  });
  const app = createAgentApp({
    serviceName: 'metered-agent',
    handler,
    internalToken: undefined,
    logger: silentLogger,
  });
  return { app, agent };
}

/** Starts a turn without waiting for it (`returnImmediately`). */
async function send(app: App, text: string): Promise<void> {
  await request(app)
    .post('/a2a')
    .set('a2a-version', '1.0')
    .send({
      jsonrpc: '2.0',
      id: text,
      method: 'SendMessage',
      params: {
        message: createMessage({ parts: [textPart(text)] }),
        configuration: { returnImmediately: true },
      },
    })
    .expect(200);
}

/** The value of the sample `name` with (at least) `labels`, whatever their order. */
async function metricValue(
  app: App,
  name: string,
  labels: Record<string, string> = {},
): Promise<number | undefined> {
  const response = await request(app).get('/metrics').expect(200);
  const wanted = Object.entries({ agent: 'metered-agent', ...labels }).map(
    ([key, value]) => `${key}="${value}"`,
  );
  const line = response.text
    .split('\n')
    .find(
      (candidate) =>
        candidate.startsWith(`${name}{`) && wanted.every((label) => candidate.includes(label)),
    );
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

async function eventually(check: () => Promise<boolean>): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('the condition never held');
}

const IN_FLIGHT = 'a2a_tasks_in_flight';
const COUNT = 'a2a_task_duration_seconds_count';

describe('observeTaskMetrics (through createAgentApp)', () => {
  it('serves the task metrics at /metrics from the start, in flight at 0', async () => {
    const { app } = createApp();
    const response = await request(app).get('/metrics').expect(200);
    expect(response.text).toContain('# TYPE a2a_tasks_in_flight gauge');
    expect(response.text).toContain('# TYPE a2a_task_duration_seconds histogram');
    expect(await metricValue(app, IN_FLIGHT, { service: 'metered-agent' })).toBe(0);
  });

  it('counts the turns in flight and times each by the state it stopped in', async () => {
    const { app, agent } = createApp();
    await send(app, 'done');
    await send(app, 'fail');
    await send(app, 'ask');
    expect(await metricValue(app, IN_FLIGHT)).toBe(3);
    expect(await metricValue(app, COUNT, { state: 'completed' })).toBeUndefined();

    agent.release();
    await eventually(async () => (await metricValue(app, IN_FLIGHT)) === 0);
    expect(await metricValue(app, COUNT, { state: 'completed' })).toBe(1);
    expect(await metricValue(app, COUNT, { state: 'failed' })).toBe(1);
    expect(await metricValue(app, COUNT, { state: 'input_required' })).toBe(1);
    const sum = await metricValue(app, 'a2a_task_duration_seconds_sum', { state: 'completed' });
    expect(sum).toBeGreaterThan(0);
  });
});
