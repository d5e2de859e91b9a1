import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DEMO_CORPUS_DIR, demoQuestion, loadDemoCorpus, reportDemoCorpus } from './demo-corpus';
import {
  DOCUMENTS_AGENT_TOKEN,
  startDocumentsAgent,
  type DocumentsAgent,
} from './test-support/documents-agent';

let agent: DocumentsAgent;
let root: string;

beforeAll(async () => {
  agent = await startDocumentsAgent();
  root = await mkdtemp(path.join(os.tmpdir(), 'fleet-demo-'));
  const corpus = path.join(root, DEMO_CORPUS_DIR);
  await mkdir(corpus, { recursive: true });
  await writeFile(path.join(corpus, 'handbook.md'), '# Handbook\nHoliday: 30 days.\n');
  await writeFile(path.join(corpus, 'prices.csv'), 'plan,price\nteam,20\n');
  await writeFile(
    path.join(corpus, 'questions.json'),
    JSON.stringify([{ question: 'How many holiday days do employees get?', expected: '30' }]),
  );
});
afterAll(async () => {
  await agent.close();
  await rm(root, { recursive: true, force: true });
});

describe('loadDemoCorpus', () => {
  it('ingests every document but questions.json, and is a no-op the second time', async () => {
    const target = { url: agent.url, token: DOCUMENTS_AGENT_TOKEN };
    const before = agent.calls.length;
    const first = await loadDemoCorpus({ root, target, tenant: 'dev' });
    expect(first).toEqual({
      files: 2,
      summary: { ingested: 2, duplicate: 0, failed: 0, chunks: 4 },
      failures: [],
    });
    expect(agent.calls.slice(before).map((call) => call.filename)).toEqual([
      'handbook.md',
      'prices.csv',
    ]);
    const second = await loadDemoCorpus({ root, target, tenant: 'dev' });
    expect(second?.summary).toEqual({ ingested: 0, duplicate: 2, failed: 0, chunks: 0 });
  });

  it('does nothing without a demo corpus', async () => {
    const empty = await mkdtemp(path.join(os.tmpdir(), 'fleet-demo-none-'));
    try {
      const target = { url: agent.url, token: DOCUMENTS_AGENT_TOKEN };
      await expect(loadDemoCorpus({ root: empty, target, tenant: 'dev' })).resolves.toBe(undefined);
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });
});

describe('demoQuestion', () => {
  it('asks the corpus’s first question so the planner routes it to the documents', async () => {
    await expect(demoQuestion(root)).resolves.toBe(
      'How many holiday days do employees get according to our documents?',
    );
    await expect(demoQuestion(path.join(root, 'nowhere'))).resolves.toBe(
      'What do our documents cover?',
    );
  });
});

describe('reportDemoCorpus', () => {
  const refusal = (file: string) => ({
    file: `/repo/${DEMO_CORPUS_DIR}/${file}`,
    status: 'failed' as const,
    error:
      'Documents cannot be ingested while the RAG agent runs with full-text search only: the embedding model text-embedding-3-small returned 768-dimensional vectors, but the RAG store expects 1536.',
    code: 'SERVICE_UNAVAILABLE',
  });
  const files = ['a.md', 'b.csv', 'c.txt', 'd.pdf', 'e.docx'];

  it('names the tenant the corpus went into', () => {
    const report = reportDemoCorpus({
      result: {
        files: 2,
        summary: { ingested: 0, duplicate: 2, failed: 0, chunks: 0 },
        failures: [],
      },
      tenant: 'acme',
      degraded: undefined,
    });
    expect(report).toEqual({
      line: `demo corpus (${DEMO_CORPUS_DIR}/): 2 files in tenant acme, 2 unchanged`,
      warnings: [],
    });
  });

  it('says once why the files were refused, not once per file', () => {
    const report = reportDemoCorpus({
      result: {
        files: 5,
        summary: { ingested: 0, duplicate: 0, failed: 5, chunks: 0 },
        failures: files.map(refusal),
      },
      tenant: 'dev',
      degraded: undefined,
    });
    expect(report.warnings).toEqual([`a.md, b.csv, c.txt and 2 more: ${refusal('a.md').error}`]);
  });

  it('points at the degraded RAG agent instead of repeating its reason', () => {
    const report = reportDemoCorpus({
      result: {
        files: 6,
        summary: { ingested: 0, duplicate: 0, failed: 6, chunks: 0 },
        failures: [
          ...files.map(refusal),
          { file: '/repo/broken.pdf', status: 'failed' as const, error: 'the file is damaged' },
        ],
      },
      tenant: 'dev',
      degraded: 'full-text search only: the embedding model …',
    });
    expect(report.warnings).toEqual([
      'a.md, b.csv, c.txt and 2 more: not stored: the RAG agent cannot embed new documents while it runs degraded (above)',
      'broken.pdf: the file is damaged',
    ]);
  });
});
