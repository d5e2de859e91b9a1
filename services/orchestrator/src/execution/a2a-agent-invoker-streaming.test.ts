import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { NodeInput, PlanNode } from '@fleet/a2a';
import { discoverAgentCard } from '@fleet/a2a/client';
import { silentLogger } from '@fleet/http';
import {
  createShapesExecutor,
  SHAPE_TEXTS,
  SHAPES_AGENT_CARD,
  startScriptedAgent,
  startSdkAgent,
  type ScriptedAgent,
  type SdkAgent,
} from '@fleet/testing';
import { summaryOf, type AvailableAgent } from '../discovery';
import { createA2AAgentInvoker, type A2AAgentInvoker } from './a2a-agent-invoker';

const TOKEN = 'test-internal-token-0123456789';

const input: NodeInput = {
  fleet: {
    sessionId: 'session-1',
    nodeId: 'n1',
    dependencyOutputs: {},
    entities: {},
    tenant: 'acme',
    memory: [],
  },
};

describe('createA2AAgentInvoker onText', () => {
  const agents = new Map<string, AvailableAgent>();
  let streaming: ScriptedAgent;
  let whole: ScriptedAgent;
  let sdk: SdkAgent;
  let invokeAgent: A2AAgentInvoker;

  async function register(name: string, url: string): Promise<void> {
    const card = await discoverAgentCard(url);
    agents.set(name, { name, url, card, summary: summaryOf(card), replicas: [{ url, card }] });
  }

  beforeAll(async () => {
    streaming = await startScriptedAgent({
      name: 'streaming',
      internalToken: TOKEN,
      reply: {
        chunks: ['Hotels are ', 'capped [1', '].'],
        chunkDelayMs: 10,
        data: { sources: [{ title: 'Policy' }] },
      },
    });
    whole = await startScriptedAgent({
      name: 'whole',
      internalToken: TOKEN,
      reply: { text: 'All at once.' },
    });
    sdk = await startSdkAgent({
      ...SHAPES_AGENT_CARD,
      executor: createShapesExecutor(),
      token: TOKEN,
    });
    await register('streaming', streaming.url);
    await register('whole', whole.url);
    await register(sdk.name, sdk.url);
    invokeAgent = createA2AAgentInvoker({
      findAgent: (name) => Promise.resolve(agents.get(name)),
      token: TOKEN,
      logger: silentLogger,
      timeoutMs: 5000,
    });
  }, 30_000);

  afterAll(async () => {
    await streaming?.close();
    await whole?.close();
    await sdk?.stop();
  });

  const call = (agent: string, task: string, pieces: string[]) =>
    invokeAgent({
      node: { id: 'n1', agent, task, dependsOn: [] } satisfies PlanNode,
      input,
      attempt: 1,
      signal: new AbortController().signal,
      onText: (text) => pieces.push(text),
    });

  it('reports a fleet agent’s appended chunks as they arrive, and joins them in the outcome', async () => {
    const pieces: string[] = [];
    const outcome = await call('streaming', 'Find the hotel rule', pieces);
    expect(pieces).toEqual(['Hotels are ', 'capped [1', '].']);
    expect(outcome).toMatchObject({
      status: 'completed',
      summary: 'Hotels are capped [1].',
      data: { sources: [{ title: 'Policy' }] },
    });
  });

  it('reports an @a2a-js/sdk agent’s chunks once it shows it streams', async () => {
    const pieces: string[] = [];
    const outcome = await call(sdk.name, 'Write the quarterly report (chunked)', pieces);
    // The first chunk (not appended, `lastChunk: false` omitted as a ProtoJSON default) reads
    // like a whole answer on the wire; the second shows the agent streams, and brings it along.
    expect(pieces).toEqual([
      SHAPE_TEXTS.chunked.slice(0, 2).join(''),
      ...SHAPE_TEXTS.chunked.slice(2),
    ]);
    expect(outcome).toMatchObject({
      status: 'completed',
      summary: SHAPE_TEXTS.chunked.join('').trim(),
    });
  });

  it('reports nothing for an answer sent whole', async () => {
    const pieces: string[] = [];
    const outcome = await call('whole', 'Answer', pieces);
    expect(pieces).toEqual([]);
    expect(outcome).toMatchObject({ status: 'completed', summary: 'All at once.' });
  });
});
