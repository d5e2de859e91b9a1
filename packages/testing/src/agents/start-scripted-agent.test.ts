import { afterEach, describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import {
  createMessage,
  dataPart,
  findData,
  partsText,
  textPart,
  type StreamResponse,
} from '@fleet/a2a';
import { A2AClient, discoverAgentCard } from '@fleet/a2a/client';
import { startScriptedAgent, type ScriptedAgent } from './start-scripted-agent';

const TOKEN = 'scripted-agent-token-0123';

async function collect(stream: AsyncIterable<StreamResponse>): Promise<StreamResponse[]> {
  const events: StreamResponse[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

function finalState(events: StreamResponse[]): string | undefined {
  const last = events.at(-1);
  return last !== undefined && 'statusUpdate' in last ? last.statusUpdate.status.state : undefined;
}

describe('startScriptedAgent', () => {
  let agent: ScriptedAgent | undefined;
  afterEach(async () => {
    await agent?.close();
    agent = undefined;
  });

  it('serves a card with its skills and answers node input with a result artifact', async () => {
    agent = await startScriptedAgent({
      name: 'web',
      skills: [{ id: 'search', tags: ['web', 'search'], examples: ['search the web'] }],
      internalToken: TOKEN,
    });
    const card = await discoverAgentCard(agent.url);
    expect(card.name).toBe('web');
    expect(card.skills[0]).toMatchObject({ id: 'search', tags: ['web', 'search'] });
    const client = new A2AClient({ card, token: TOKEN });
    const input = {
      fleet: {
        sessionId: 's',
        nodeId: 'n2',
        dependencyOutputs: { n1: { agent: 'rag', summary: 'rag found X' } },
        entities: {},
        tenant: 't',
        memory: [],
      },
    };
    const events = await collect(
      client.sendStreamingMessage({
        message: createMessage({ parts: [textPart('find Y'), dataPart(input)] }),
      }),
    );
    expect(finalState(events)).toBe('TASK_STATE_COMPLETED');
    const artifact = events.find((event) => 'artifactUpdate' in event);
    const parts =
      artifact && 'artifactUpdate' in artifact ? artifact.artifactUpdate.artifact.parts : [];
    expect(partsText(parts)).toBe('web handled: find Y');
    expect(findData(parts, z.object({ dependencies: z.record(z.string(), z.string()) }))).toEqual({
      dependencies: { n1: 'rag found X' },
    });
    expect(agent.requests[0]?.nodeInput?.nodeId).toBe('n2');
  });

  it('fails, asks for approval, or continues after a decision, as scripted', async () => {
    agent = await startScriptedAgent({
      name: 'mail',
      respond: (request) =>
        request.text.includes('fail')
          ? { fail: 'SMTP refused the message' }
          : { approval: { action: 'send-mail', summary: 'Send a mail to bob' } },
    });
    const client = new A2AClient({ card: await discoverAgentCard(agent.url) });
    const failed = await collect(
      client.sendStreamingMessage({ message: createMessage({ parts: 'please fail' }) }),
    );
    expect(finalState(failed)).toBe('TASK_STATE_FAILED');

    const paused = await collect(
      client.sendStreamingMessage({ message: createMessage({ parts: 'send it' }) }),
    );
    expect(finalState(paused)).toBe('TASK_STATE_AUTH_REQUIRED');
    const first = paused[0];
    const taskId = first && 'task' in first ? first.task.id : '';
    const resumed = await collect(
      client.sendStreamingMessage({
        message: createMessage({
          taskId,
          parts: [dataPart({ approvalDecision: { decision: 'approve' } })],
        }),
      }),
    );
    expect(finalState(resumed)).toBe('TASK_STATE_COMPLETED');
    expect(agent.requests.at(-1)).toMatchObject({
      isContinuation: true,
      approvalDecision: { decision: 'approve' },
    });
  });

  it('answers 503 for its first calls when scripted to be briefly unavailable', async () => {
    agent = await startScriptedAgent({ name: 'flaky', unavailableTimes: 1 });
    const client = new A2AClient({ card: await discoverAgentCard(agent.url), maxRetries: 0 });
    await expect(
      collect(client.sendStreamingMessage({ message: createMessage({ parts: 'x' }) })),
    ).rejects.toThrow();
    const events = await collect(
      client.sendStreamingMessage({ message: createMessage({ parts: 'x' }) }),
    );
    expect(finalState(events)).toBe('TASK_STATE_COMPLETED');
  });
});
