import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import type { RunFile } from '@fleet/a2a';
import { startScriptedOpenAI, type ScriptedOpenAI } from '@fleet/testing';
import { fileLink, filesSection, fullFileLine } from './answer-files';
import { composeAnswer, type ComposeStep } from './compose-answer';

function runFile(id: string, name: string, mediaType: string): RunFile {
  return {
    id: `file-${id.padStart(32, '0')}`,
    name,
    mediaType,
    size: 10,
    sha256: '0'.repeat(64),
    source: 'step',
    createdAt: '2026-01-01T00:00:00.000Z',
    expiresAt: '2026-01-02T00:00:00.000Z',
  };
}

const chart = runFile('1', 'sales chart.png', 'image/png');
const page = runFile('2', 'report.html', 'text/html');
const csv = runFile('3', 'regions.csv', 'text/csv');

const CSV_ROWS = Array.from({ length: 30 }, (_, index) => [`r${index}`, `${index}`]);

const steps: ComposeStep[] = [
  {
    id: 'code',
    agent: 'code-agent',
    task: 'Plot the sales',
    state: 'completed',
    summary: 'Here is the chart.',
    files: [chart, page],
  },
  {
    id: 'sheet',
    agent: 'sheets',
    task: 'List the regions',
    state: 'completed',
    summary: 'The regions are in the file.',
    tables: [{ columns: ['region', 'n'], rows: CSV_ROWS, totalRows: 30, file: 'regions.csv' }],
    files: [csv],
  },
  {
    id: 'broken',
    agent: 'other',
    task: 'Fail',
    state: 'failed',
    error: 'it broke',
    files: [runFile('4', 'never.png', 'image/png')],
  },
];

describe('file links in the answer', () => {
  let upstream: ScriptedOpenAI;
  let client: OpenAI;

  beforeAll(async () => {
    upstream = await startScriptedOpenAI();
    client = new OpenAI({ baseURL: upstream.baseURL, apiKey: 'test', maxRetries: 0 });
  });
  afterAll(async () => {
    await upstream.close();
  });

  it('shows an image inline and links anything else, HTML never as an image', () => {
    expect(fileLink(chart)).toBe(`![sales chart.png](/v1/files/${chart.id}/content)`);
    expect(fileLink(page)).toBe(`[report.html](/v1/files/${page.id}/content)`);
    expect(fileLink(runFile('5', 'logo.svg', 'image/svg+xml'))).toMatch(/^\[logo\.svg\]/);
    expect(filesSection([])).toBe('');
  });

  it('says where the full file of a CSV table is, only for a file the run keeps', () => {
    const table = { columns: ['a'], rows: [['1']], totalRows: 1, file: 'regions.csv' };
    expect(fullFileLine(table, [csv])).toBe(
      `full file: [regions.csv](/v1/files/${csv.id}/content)`,
    );
    expect(fullFileLine(table, [chart])).toBe('');
    expect(fullFileLine({ ...table, file: undefined }, [csv])).toBe('');
  });

  it('ends the offline answer with the completed steps’ files and links the CSV under its table', async () => {
    const answer = await composeAnswer({ request: 'Sales', steps, tableRows: 5 });
    expect(answer.composer).toBe('offline');
    expect(answer.text).toContain(
      `first 5 of 30 rows; the full table is in regions.csv\n\nfull file: [regions.csv](/v1/files/${csv.id}/content)`,
    );
    expect(
      answer.text.endsWith(
        [
          'Files',
          `![sales chart.png](/v1/files/${chart.id}/content)`,
          `[report.html](/v1/files/${page.id}/content)`,
          `[regions.csv](/v1/files/${csv.id}/content)`,
        ].join('\n'),
      ),
    ).toBe(true);
    expect(answer.text).not.toContain('never.png');
  });

  it('appends the links to the LLM’s answer and never shows the model a link', async () => {
    upstream.enqueue({ content: 'The chart shows rising sales.' });
    const answer = await composeAnswer({
      request: 'Sales',
      steps,
      llm: { client, model: 'scripted-model' },
    });
    expect(answer.composer).toBe('llm');
    expect(answer.text.startsWith('The chart shows rising sales.')).toBe(true);
    expect(answer.text).toContain(`![sales chart.png](/v1/files/${chart.id}/content)`);
    expect(answer.text.trimEnd().endsWith(`[regions.csv](/v1/files/${csv.id}/content)`)).toBe(true);
    const prompt = JSON.stringify(upstream.requests.at(-1)?.body);
    expect(prompt).not.toContain('/v1/files/');
  });

  it('appends the links to a single step’s streamed answer', async () => {
    const answer = await composeAnswer({
      request: 'Sales',
      steps: [steps[0] as ComposeStep],
      streamedStep: 'code',
    });
    expect(answer.text).toBe(
      [
        'Here is the chart.',
        `Files\n![sales chart.png](/v1/files/${chart.id}/content)\n[report.html](/v1/files/${page.id}/content)`,
      ].join('\n\n'),
    );
  });
});
