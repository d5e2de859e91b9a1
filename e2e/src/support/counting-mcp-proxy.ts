/**
 * MCP servers from npm for the e2e tests, run with this Node (never npx), and a counting stdio
 * proxy in front of one: it forwards every line both ways unchanged and appends one JSON line per
 * `tools/call` it passes on to a file, so a test can count the calls a real server received.
 */
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** The entry file of an MCP server package from npm (`server-memory`, …). */
export function mcpServerEntry(name: string): string {
  const manifest = require.resolve(`@modelcontextprotocol/${name}/package.json`);
  return path.join(path.dirname(manifest), 'dist', 'index.js');
}

const COUNTING_PROXY = String.raw`
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const readline = require('node:readline');
const [callsFile, ...serverArgs] = process.argv.slice(2);
const server = spawn(process.execPath, serverArgs, { stdio: ['pipe', 'pipe', 'inherit'] });
server.stdout.pipe(process.stdout);
server.on('exit', (code) => process.exit(code ?? 1));
for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => server.kill(signal));
readline
  .createInterface({ input: process.stdin })
  .on('line', (line) => {
    let parsed;
    try {
      parsed = JSON.parse(line);
    } catch {
      parsed = undefined;
    }
    for (const message of Array.isArray(parsed) ? parsed : [parsed]) {
      if (message && message.method === 'tools/call') {
        const params = message.params || {};
        fs.appendFileSync(callsFile, JSON.stringify({ tool: params.name, arguments: params.arguments }) + '\n');
      }
    }
    server.stdin.write(line + '\n');
  })
  .on('close', () => server.stdin.end());
`;

/** What {@link countingProxy} returns: an `mcpServers` entry and where its calls are counted. */
export interface CountingProxy {
  /** The stdio entry for MCP_SERVERS: `command`, `args`, `env`. */
  entry: { command: string; args: string[]; env: Record<string, string> };
  /** The file with one line `{ tool, arguments }` per `tools/call` forwarded. */
  callsFile: string;
  /** The calls forwarded so far, in order. */
  calls(): { tool: string; arguments: Record<string, unknown> }[];
}

/**
 * A stdio MCP server entry that runs `node <serverArgs…>` behind a counting proxy: the server sees
 * exactly what the client sent, and every `tools/call` is appended to `callsFile` before it is
 * forwarded.
 *
 * @example
 * const proxy = countingProxy({ serverArgs: [mcpServerEntry('server-memory')], env: { MEMORY_FILE_PATH: file } });
 * proxy.calls().filter((call) => call.tool === 'delete_entities');
 */
export function countingProxy({
  serverArgs,
  env = {},
}: {
  serverArgs: string[];
  env?: Record<string, string>;
}): CountingProxy {
  const directory = mkdtempSync(path.join(tmpdir(), 'e2e-counting-mcp-proxy-'));
  const script = path.join(directory, 'counting-proxy.cjs');
  writeFileSync(script, COUNTING_PROXY);
  chmodSync(script, 0o600);
  const callsFile = path.join(directory, 'calls.jsonl');
  writeFileSync(callsFile, '');
  return {
    entry: { command: process.execPath, args: [script, callsFile, ...serverArgs], env },
    callsFile,
    calls: () =>
      readFileSync(callsFile, 'utf8')
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as { tool: string; arguments: Record<string, unknown> }),
  };
}
