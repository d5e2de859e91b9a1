import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import { writeBadServer } from '../__fixtures__/bad-server';

/**
 * An agent process that opens one stdio connection with the built package (`tsc -b` runs before
 * jest in `pnpm test`), prints the server's pid and waits to be killed.
 */
const DIST = join(__dirname, '..', '..', 'dist', 'index.js');
const AGENT = String.raw`
const { createMcpConnection } = require(process.env.MCP_DIST);
const config = JSON.parse(process.env.MCP_SERVER);
const connection = createMcpConnection('server', config);
connection.connect().then(
  () => process.stdout.write(connection.pid + '\n'),
  (error) => { process.stderr.write(String(error) + '\n'); process.exit(1); },
);
setInterval(() => {}, 1000);
`;

const agents: ChildProcess[] = [];

afterEach(() => {
  for (const agent of agents.splice(0)) agent.kill('SIGKILL');
});

/** Running, not merely a zombie waiting to be reaped. */
function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

function processGroupOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command: state, ppid, pgrp.
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
}

function groupRuns(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

async function startAgent(server: { command: string; args: string[]; env?: object }) {
  expect(existsSync(DIST)).toBe(true);
  const agent = spawn(process.execPath, ['-e', AGENT], {
    env: { ...process.env, MCP_DIST: DIST, MCP_SERVER: JSON.stringify(server) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  agents.push(agent);
  let stderr = '';
  agent.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const pid = await new Promise<number>((resolve, reject) => {
    agent.stdout.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim())));
    agent.once('exit', () => reject(new Error(`the agent exited: ${stderr}`)));
  });
  return { agent, pid };
}

async function waitFor(condition: () => boolean, timeoutMs: number): Promise<number> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > timeoutMs) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return Date.now() - started;
}

describe('the stdio watchdog', () => {
  it('ends a server that ignores stdin EOF and SIGTERM, with its group, when the agent is SIGKILLed', async () => {
    const { agent, pid } = await startAgent({
      command: process.execPath,
      args: [writeBadServer(), 'stubborn'],
    });
    expect(isRunning(pid)).toBe(true);
    const group = processGroupOf(pid);
    expect(group).not.toBe(pid); // the watchdog leads the group
    expect(group).not.toBe(process.pid);
    agent.kill('SIGKILL');
    // SIGTERM first (ignored by this server), SIGKILL one second later.
    const took = await waitFor(() => !isRunning(pid) && !groupRuns(group), 5000);
    expect(took).toBeGreaterThanOrEqual(900);
  });

  it('ends server-memory when the agent is SIGKILLed', async () => {
    const manifest = require.resolve('@modelcontextprotocol/server-memory/package.json');
    const file = join(mkdtempSync(join(tmpdir(), 'fleet-mcp-memory-')), 'memory.jsonl');
    const { agent, pid } = await startAgent({
      command: process.execPath,
      args: [join(dirname(manifest), 'dist', 'index.js')],
      env: { MEMORY_FILE_PATH: file },
    });
    const group = processGroupOf(pid);
    expect(isRunning(pid)).toBe(true);
    agent.kill('SIGKILL');
    await waitFor(() => !isRunning(pid) && !groupRuns(group), 5000);
  });
});
