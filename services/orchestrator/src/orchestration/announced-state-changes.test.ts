import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import {
  createMessage,
  dataPart,
  findData,
  progressEventSchema,
  RESULT_ARTIFACT_NAME,
  textPart,
  type Plan,
  type ProgressEvent,
} from '@fleet/a2a';
import type { Session, SessionStore } from '@fleet/sessions';
import { startScriptedAgent, type ScriptedAgent } from '@fleet/testing';
import { z } from 'zod';
import {
  TEST_TOKEN,
  startTestOrchestrator,
  type TestOrchestrator,
} from '../test-support/start-test-orchestrator';

const prefix = `test:orchestrator-announced:${randomUUID()}:`;
const progressData = z.object({ progress: progressEventSchema });

const PLAN: Plan = {
  nodes: [
    { id: 'first', agent: 'notes', task: 'Look it up', dependsOn: [] },
    { id: 'second', agent: 'notes', task: 'Look again', dependsOn: ['first'] },
  ],
  rationale: 'two steps',
  confidence: 1,
};

/** The session store with every update held back a while: its writes land well after the run asked. */
function slowUpdates(sessions: SessionStore, delayMs: number): SessionStore {
  const update: SessionStore['update'] = async (id, mutate, options) => {
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    return sessions.update(id, mutate, options);
  };
  return new Proxy(sessions, {
    get(target, key) {
      if (key === 'update') return update;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? (value as () => unknown).bind(target) : value;
    },
  });
}

/** What the stored session must already hold when the run announces `event`, or undefined. */
function missing(event: ProgressEvent, session: Session | undefined): string | undefined {
  if (session === undefined) return 'the session';
  if (event.type === 'plan-end') return session.plan === undefined ? 'the plan' : undefined;
  if (event.type === 'node-start') {
    return session.nodes[event.nodeId]?.state === 'pending' ? `${event.nodeId} running` : undefined;
  }
  if (event.type === 'node-end') {
    return session.nodes[event.nodeId]?.state === event.state
      ? undefined
      : `${event.nodeId} ${event.state}`;
  }
  return undefined;
}

describe('a run’s state changes', () => {
  let redis: Redis;
  let notes: ScriptedAgent;
  let orchestrator: TestOrchestrator;

  beforeAll(async () => {
    redis = new Redis('redis://127.0.0.1:6379');
    notes = await startScriptedAgent({ name: 'notes', internalToken: TEST_TOKEN });
    orchestrator = await startTestOrchestrator({
      redis,
      prefix,
      agentUrls: [notes.url],
      wrapSessions: (sessions) => slowUpdates(sessions, 40),
    });
  }, 30_000);

  afterAll(async () => {
    await orchestrator?.close();
    await notes?.close();
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });

  it('are announced only once the session holds them; progress lines need not wait', async () => {
    const seen: string[] = [];
    const gaps: string[] = [];
    let sessionId: string | undefined;
    let resultStored: boolean | undefined;
    for await (const event of orchestrator.client.sendStreamingMessage({
      message: createMessage({
        parts: [textPart('Look it up twice'), dataPart({ fleet: { tenant: 'acme', plan: PLAN } })],
      }),
    })) {
      if (
        'artifactUpdate' in event &&
        event.artifactUpdate.artifact.name === RESULT_ARTIFACT_NAME
      ) {
        const stored =
          sessionId === undefined ? undefined : await orchestrator.sessions.get(sessionId);
        resultStored = stored?.result !== undefined;
        continue;
      }
      if (!('statusUpdate' in event)) continue;
      const progress = findData(event.statusUpdate.status.message?.parts ?? [], progressData);
      if (progress === undefined) continue;
      if (progress.progress.type === 'run-start') sessionId = progress.progress.sessionId;
      // Read as the event arrives: a write held back 40 ms has not landed unless it was awaited.
      const stored =
        sessionId === undefined ? undefined : await orchestrator.sessions.get(sessionId);
      const gap = missing(progress.progress, stored);
      seen.push(progress.progress.type);
      if (gap !== undefined) gaps.push(`${progress.progress.type} before ${gap} was stored`);
    }
    expect(gaps).toEqual([]);
    expect(resultStored).toBe(true);
    expect(seen).toEqual([
      'run-start',
      'plan-start',
      'plan-end',
      // Each step's agent says it is working (a progress line under the step).
      'node-start',
      'node-progress',
      'node-end',
      'node-start',
      'node-progress',
      'node-end',
      'compose-start',
      'run-end',
    ]);
  });
});
