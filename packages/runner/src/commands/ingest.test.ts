import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { getFreePort } from '@fleet/testing';
import { runCli } from '../cli';
import { writeState } from '../state-file';
import {
  DOCUMENTS_AGENT_TOKEN,
  startDocumentsAgent,
  type DocumentsAgent,
} from '../test-support/documents-agent';
import { collector } from '../test-support/output-collector';

let agent: DocumentsAgent;
let root: string;

beforeAll(async () => {
  agent = await startDocumentsAgent();
});
afterAll(async () => {
  await agent.close();
});

beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'fleet-ingest-'));
  await mkdir(path.join(root, 'docs/sub'), { recursive: true });
  await writeFile(path.join(root, 'docs/guide.md'), '# Guide\nStep one.\nStep two.\n');
  await writeFile(path.join(root, 'docs/sub/prices.csv'), 'item,price\ntea,3\n');
  await writeFile(path.join(root, 'docs/sub/photo.png'), 'not a document');
  await writeFile(path.join(root, 'broken.txt'), 'BROKEN bytes');
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function fleet(argv: string[], environment: Record<string, string> = {}) {
  const stdout = collector();
  const stderr = collector();
  const code = await runCli({
    argv,
    environment: {
      PATH: process.env['PATH'] ?? '/usr/bin:/bin',
      FLEET_ROOT: root,
      INIT_CWD: root,
      FLEET_INTERNAL_TOKEN: DOCUMENTS_AGENT_TOKEN,
      ...environment,
    },
    stdout,
    stderr,
  });
  return { code, stdout: stdout.text, stderr: stderr.text };
}

describe('fleet ingest', () => {
  it('sends every supported file under a directory into the tenant and reports each', async () => {
    const before = agent.calls.length;
    const result = await fleet(['ingest', 'docs', '--url', agent.url, '--tenant', 'acme']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`Ingesting 2 files into tenant acme (${agent.url}):`);
    expect(result.stdout).toMatch(/✔ docs\/guide\.md\s+3 chunks \(md\)/);
    expect(result.stdout).toMatch(/✔ docs\/sub\/prices\.csv\s+2 chunks \(csv\)/);
    expect(result.stdout).toContain('Done: 2 new (5 chunks).');
    const calls = agent.calls.slice(before);
    expect(calls.map((call) => [call.command, call.filename, call.mediaType])).toEqual([
      [{ op: 'ingest', tenant: 'acme' }, 'guide.md', 'text/markdown'],
      [{ op: 'ingest', tenant: 'acme' }, 'prices.csv', 'text/csv'],
    ]);
    expect(calls[0]?.bytes.toString()).toBe('# Guide\nStep one.\nStep two.\n');

    const again = await fleet(['ingest', 'docs/guide.md', '--url', agent.url, '--tenant', 'acme']);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/= docs\/guide\.md\s+unchanged: already ingested \(3 chunks\)/);
    expect(again.stdout).toContain('Done: 1 unchanged.');
  });

  it('says when a file was stored cut short, with the reason the agent gave', async () => {
    await writeFile(path.join(root, 'huge.csv'), 'HUGE,rows\n1,2\n3,4\n');
    const result = await fleet(['ingest', 'huge.csv', '--url', agent.url, '--tenant', 'acme']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /✔ huge\.csv\s+3 chunks \(csv\)\s+\(truncated\)\n\s+⚠ only the first 2 of 9 rows were indexed \(RAG_MAX_ROWS\)\n/,
    );
  });

  it('goes on past a file the agent cannot read, and exits 1', async () => {
    const result = await fleet([
      'ingest',
      'broken.txt',
      'docs/sub/prices.csv',
      'docs/sub/photo.png',
      'missing',
      '--url',
      agent.url,
      '--tenant',
      'other',
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('✖ docs/sub/photo.png: not a supported document type');
    expect(result.stderr).toContain('✖ missing: no such file or directory');
    expect(result.stdout).toMatch(
      /✖ broken\.txt\s+Cannot index "broken\.txt": the file is damaged\./,
    );
    expect(result.stdout).toMatch(/✔ docs\/sub\/prices\.csv\s+2 chunks/);
    expect(result.stdout).toContain('Done: 1 new (2 chunks), 1 failed; 2 paths skipped.');
  });

  it('finds the agent and the token the runner started it with', async () => {
    await mkdir(path.join(root, '.fleet'), { recursive: true });
    await writeFile(
      path.join(root, '.fleet/secrets.json'),
      JSON.stringify({
        gatewayApiKey: 'sk-fleet-dev-0123456789abcdef',
        internalToken: DOCUMENTS_AGENT_TOKEN,
      }),
    );
    await writeState(path.join(root, '.fleet/state.json'), {
      version: 1,
      startedAt: new Date().toISOString(),
      services: [
        {
          name: 'rag-agent',
          // This process stands in for the agent's: alive, and its command line has `node`.
          pid: process.pid,
          port: Number(new URL(agent.url).port),
          url: agent.url,
          entry: path.basename(process.execPath),
          logFile: path.join(root, '.fleet/logs/rag-agent.log'),
          logOffset: 0,
        },
      ],
    });
    const result = await fleet(['ingest', 'docs/guide.md'], { FLEET_INTERNAL_TOKEN: '' });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('into tenant dev');
    expect(agent.calls.at(-1)?.command).toEqual({ op: 'ingest', tenant: 'dev' });
  });

  it('says how to start the fleet when no RAG agent runs or answers', async () => {
    const notRunning = await fleet(['ingest', 'docs']);
    expect(notRunning.code).toBe(1);
    expect(notRunning.stderr).toContain(
      'The RAG agent is not running. Start the fleet with `pnpm fleet up`',
    );

    const url = `http://127.0.0.1:${await getFreePort()}`;
    const unreachable = await fleet(['ingest', 'docs', '--url', url]);
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toContain(`The RAG agent is not reachable at ${url}.`);
  });

  it('explains a token the agent refuses', async () => {
    const result = await fleet(['ingest', 'docs', '--url', agent.url], {
      FLEET_INTERNAL_TOKEN: 'not-the-agents-token-0123',
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('refused the internal token');
  });

  it('refuses a bad command line with exit code 2', async () => {
    const none = await fleet(['ingest']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('Name at least one file or directory to ingest.');
    const tenant = await fleet(['ingest', 'docs', '--tenant', 'a b']);
    expect(tenant.code).toBe(2);
    expect(tenant.stderr).toContain('--tenant expects');
    const help = await fleet(['ingest', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: pnpm fleet ingest <path...>');
    expect(help.stdout).toContain('Examples:');
  });
});
