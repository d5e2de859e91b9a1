/**
 * A fleet started offline after one with an upstream. The RAG store then holds the
 * upstream's embeddings, which nothing offline can compute; the RAG agent used to stop the boot,
 * and with it `fleet up` stopped all eight services. Now the RAG agent starts degraded (full-text
 * search only, said in its answers and in `/readyz`) and the other seven start as usual.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createMessage, dataPart, RESULT_ARTIFACT_NAME, type Part, type Task } from '@fleet/a2a';
import { A2AClient } from '@fleet/a2a/client';
import { startScriptedOpenAI, startService, type ScriptedOpenAI } from '@fleet/testing';
import { E2E_INTERNAL_TOKEN, startFleet, type RunningFleet } from './support/start-fleet';
import { REPO_ROOT } from './support/start-gateway';

const TENANT = 'e2e';
const HANDBOOK = [
  '# Osprey handbook',
  '',
  '## Travel',
  '',
  'Train travel is booked in second class; trips over six hours may be booked in first class.',
  '',
].join('\n');

function handbook(): Part[] {
  return [
    dataPart({ documents: { op: 'ingest', tenant: TENANT } }),
    {
      raw: Buffer.from(HANDBOOK).toString('base64'),
      filename: 'osprey-handbook.md',
      mediaType: 'text/markdown',
    },
  ];
}

async function send(url: string, parts: Part[]): Promise<Task> {
  const client = new A2AClient({ url: `${url}/a2a`, token: E2E_INTERNAL_TOKEN, timeoutMs: 60_000 });
  return (await client.sendMessage({ message: createMessage({ parts }) })) as Task;
}

function resultText(task: Task): string {
  const artifact = task.artifacts?.find((entry) => entry.name === RESULT_ARTIFACT_NAME);
  return artifact?.parts.find((part) => part.text !== undefined)?.text ?? '';
}

describe('an offline start after one with an upstream', () => {
  let llm: ScriptedOpenAI;
  let dataDir: string;
  let fleet: RunningFleet | undefined;

  beforeAll(async () => {
    llm = await startScriptedOpenAI();
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'e2e-rag-offline-after-online-'));
  });

  afterAll(async () => {
    await fleet?.stop();
    await llm?.close();
    await rm(dataDir, { recursive: true, force: true });
  }, 60_000);

  it('starts every service, the RAG agent degraded to full-text search', async () => {
    // Once with the upstream: the store is built with its embeddings.
    const online = await startService({
      root: REPO_ROOT,
      name: 'rag-agent',
      env: {
        FLEET_INTERNAL_TOKEN: E2E_INTERNAL_TOKEN,
        RAG_DATA_DIR: dataDir,
        OPENAI_BASE_URL: llm.baseURL,
        OPENAI_API_KEY: 'sk-test',
      },
      timeoutMs: 90_000,
    });
    try {
      const stored = await send(online.url, handbook());
      expect(stored.status.state).toBe('TASK_STATE_COMPLETED');
    } finally {
      await online.stop();
    }
    expect(llm.requests.some((request) => request.path.endsWith('/embeddings'))).toBe(true);

    // Then offline, the whole fleet on the same store.
    fleet = await startFleet({
      agents: [],
      ragAgent: true,
      serviceEnv: { 'rag-agent': { RAG_DATA_DIR: dataDir } },
      agentServices: { 'web-agent': {}, 'mail-agent': {}, 'code-agent': {}, 'reasoning-agent': {} },
    });
    expect(Object.keys(fleet.services).sort()).toEqual([
      'code-agent',
      'gateway',
      'mail-agent',
      'orchestrator',
      'planner',
      'rag-agent',
      'reasoning-agent',
      'web-agent',
    ]);
    const ragAgent = fleet.ragAgent?.url ?? '';
    const ready = await fetch(`${ragAgent}/readyz`);
    expect(ready.status).toBe(200);
    const body = (await ready.json()) as { status: string; checks: Record<string, string> };
    expect(body.status).toBe('degraded');
    expect(body.checks['embeddings']).toContain(
      'full-text search only: the RAG store holds text-embedding-3-small embeddings (1536 dimensions), and no upstream is configured to compute them.',
    );

    const answered = await send(ragAgent, [
      { text: 'Which class is train travel booked in?' },
      dataPart({
        fleet: { tenant: TENANT, sessionId: 's-1', nodeId: 'docs', dependencyOutputs: {} },
      }),
    ]);
    expect(answered.status.state).toBe('TASK_STATE_COMPLETED');
    expect(resultText(answered)).toMatch(/^Only full-text search was used \(/);
    expect(resultText(answered)).toContain('second class');
  }, 240_000);
});
