import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { textPart, type Plan } from '@fleet/a2a';
import type { RunningServer } from '@fleet/http';
import { startScriptedAgent, type ScriptedAgent } from '@fleet/testing';
import { answering, startTestAgent } from '../test-support/start-test-agent';
import {
  TEST_TOKEN,
  orchestrate,
  outcomeOf,
  startTestOrchestrator,
  type TestOrchestrator,
} from '../test-support/start-test-orchestrator';

const prefix = `test:orchestrator-answer-tables:${randomUUID()}:`;

/** 50 months of sales, as a data part. */
const SALES = {
  columns: ['month', 'sales'],
  rows: Array.from({ length: 50 }, (_, index) => [`month ${index + 1}`, (index + 1) * 100]),
};

/** The same kind of table as a CSV file with quoted cells, 50 rows. */
const CSV = [
  'region,note',
  ...Array.from({ length: 50 }, (_, index) => `"North, ${index + 1}","says ""ok"" | fine"`),
].join('\r\n');

function plan(nodes: { id: string; agent: string; task: string }[]): Plan {
  return {
    nodes: nodes.map((node) => ({ ...node, dependsOn: [] })),
    rationale: 'tables',
    confidence: 0.9,
  };
}

describe('tables in the answer (real Redis, real A2A agents)', () => {
  let redis: Redis;
  let sheets: ScriptedAgent;
  let notes: ScriptedAgent;
  let files: RunningServer;
  let orchestrator: TestOrchestrator;

  beforeAll(async () => {
    redis = new Redis('redis://127.0.0.1:6379');
    sheets = await startScriptedAgent({
      name: 'sheets',
      internalToken: TEST_TOKEN,
      reply: { text: 'Sales by month.', data: SALES },
    });
    notes = await startScriptedAgent({
      name: 'notes',
      internalToken: TEST_TOKEN,
      reply: { text: 'No notes about sales.' },
    });
    files = await startTestAgent({
      name: 'files',
      token: TEST_TOKEN,
      execute: answering(() => [
        {
          type: 'artifact',
          artifact: {
            name: 'result',
            parts: [
              textPart('The regions are in the file.'),
              {
                raw: Buffer.from(CSV, 'utf8').toString('base64'),
                mediaType: 'text/csv',
                filename: 'regions.csv',
              },
            ],
          },
        },
      ]),
    });
    orchestrator = await startTestOrchestrator({
      redis,
      prefix,
      agentUrls: [sheets.url, notes.url, files.url],
    });
  });

  afterAll(async () => {
    await orchestrator.close();
    await Promise.all([sheets.close(), notes.close(), files.shutdown()]);
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it('shows a step’s 50-row data table as a 20-row Markdown table under the step', async () => {
    const events = await orchestrate(orchestrator.client, {
      text: 'sales by month',
      fleet: {
        tenant: 'acme',
        plan: plan([
          { id: 'sales', agent: 'sheets', task: 'Sum sales by month' },
          { id: 'notes', agent: 'notes', task: 'Find notes about sales' },
        ]),
      },
    }).done;
    const answer = outcomeOf(events).answer ?? '';
    const tableLines = answer.split('\n').filter((line) => line.startsWith('|'));
    expect(tableLines).toHaveLength(2 + 20);
    expect(tableLines.slice(0, 3)).toEqual([
      '| month | sales |',
      '| --- | --- |',
      '| month 1 | 100 |',
    ]);
    expect(tableLines.at(-1)).toBe('| month 20 | 2000 |');
    expect(answer).toContain('| month 20 | 2000 |\n\nfirst 20 of 50 rows');
    expect(answer).not.toContain('month 21');
    // Under its step, before the next step's answer.
    expect(answer.indexOf('Sales by month.')).toBeLessThan(answer.indexOf('| month |'));
    expect(answer.indexOf('first 20 of 50 rows')).toBeLessThan(
      answer.indexOf('No notes about sales.'),
    );
  });

  it('shows a CSV file part as a Markdown table and names the file that holds the rest', async () => {
    const events = await orchestrate(orchestrator.client, {
      text: 'regions',
      fleet: {
        tenant: 'acme',
        plan: plan([{ id: 'regions', agent: 'files', task: 'Export the regions' }]),
      },
    }).done;
    const outcome = outcomeOf(events);
    const answer = outcome.answer ?? '';
    const tableLines = answer.split('\n').filter((line) => line.startsWith('|'));
    expect(tableLines).toHaveLength(2 + 20);
    expect(tableLines.slice(0, 3)).toEqual([
      '| region | note |',
      '| --- | --- |',
      '| North, 1 | says "ok" \\| fine |',
    ]);
    expect(answer).toContain('first 20 of 50 rows; the full table is in regions.csv');
    expect(answer.indexOf('The regions are in the file.')).toBeLessThan(answer.indexOf('| region'));
  });
});
