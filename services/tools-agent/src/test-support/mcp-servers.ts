import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { StdioServerConfig } from '@fleet/mcp';

/** The entry file of an MCP server package from npm (`server-memory`, `server-everything`, …). */
export function serverEntry(name: string): string {
  const manifest = require.resolve(`@modelcontextprotocol/${name}/package.json`);
  return path.join(path.dirname(manifest), 'dist', 'index.js');
}

/** `@modelcontextprotocol/server-memory` keeping its graph in `file`, annotations trusted. */
export function memoryServer(file: string): StdioServerConfig {
  return {
    command: process.execPath,
    args: [serverEntry('server-memory')],
    env: { MEMORY_FILE_PATH: file },
    trustAnnotations: true,
  };
}

/** `@modelcontextprotocol/server-everything` over stdio, annotations trusted. */
export function everythingServer(): StdioServerConfig {
  return {
    command: process.execPath,
    args: [serverEntry('server-everything'), 'stdio'],
    trustAnnotations: true,
  };
}

const GROWING_SERVER = String.raw`
const readline = require('node:readline');
const tools = [{ name: 'grow', description: 'Adds a tool.', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } }];
const send = (message) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...message }) + '\n');
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  const { id, method, params } = JSON.parse(line);
  if (method === 'initialize') {
    return send({ id, result: { protocolVersion: params.protocolVersion, capabilities: { tools: { listChanged: true } }, serverInfo: { name: 'growing', version: '1.0.0' } } });
  }
  if (method === 'tools/list') return send({ id, result: { tools } });
  if (method === 'tools/call') {
    const name = 'grown_' + tools.length;
    tools.push({ name, title: 'Grown ' + tools.length, description: 'Added at run time.', inputSchema: { type: 'object' } });
    send({ id, result: { content: [{ type: 'text', text: 'added ' + name }] } });
    return send({ method: 'notifications/tools/list_changed' });
  }
  if (id !== undefined) send({ id, result: {} });
});
`;

/**
 * A tiny stdio MCP server (no package offers this): its tool `grow` adds a tool and sends
 * `notifications/tools/list_changed`, so a test can see the card follow a list change.
 */
export function growingServer(): StdioServerConfig {
  const directory = mkdtempSync(path.join(tmpdir(), 'tools-agent-growing-'));
  const script = path.join(directory, 'growing-server.cjs');
  writeFileSync(script, GROWING_SERVER);
  chmodSync(script, 0o600);
  return { command: process.execPath, args: [script], trustAnnotations: true };
}

const CRASHING_SERVER = String.raw`
const fs = require('node:fs');
const readline = require('node:readline');
const counts = process.argv[2];
const tools = [
  { name: 'flaky_read', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } },
  { name: 'flaky_write', inputSchema: { type: 'object' }, annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false } },
];
const send = (message) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...message }) + '\n');
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  const { id, method, params } = JSON.parse(line);
  if (method === 'initialize') {
    return send({ id, result: { protocolVersion: params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'crashing', version: '1.0.0' } } });
  }
  if (method === 'tools/list') return send({ id, result: { tools } });
  if (method === 'tools/call') {
    const seen = fs.existsSync(counts) ? JSON.parse(fs.readFileSync(counts, 'utf8')) : {};
    const count = (seen[params.name] ?? 0) + 1;
    fs.writeFileSync(counts, JSON.stringify({ ...seen, [params.name]: count }));
    // Received, then gone before answering: the caller cannot know what happened.
    if (params.name === 'flaky_write' || count === 1) process.exit(1);
    return send({ id, result: { content: [{ type: 'text', text: 'read after ' + count + ' tries' }] } });
  }
  if (id !== undefined) send({ id, result: {} });
});
`;

/**
 * A tiny stdio MCP server that exits while answering a call, after counting it in `countsFile`
 * (JSON, calls by tool): `flaky_read` (read-only) dies on its first call only, `flaky_write`
 * (neither read-only nor idempotent) on every call.
 */
export function crashingServer(countsFile: string): StdioServerConfig {
  const directory = mkdtempSync(path.join(tmpdir(), 'tools-agent-crashing-'));
  const script = path.join(directory, 'crashing-server.cjs');
  writeFileSync(script, CRASHING_SERVER);
  return {
    command: process.execPath,
    args: [script, countsFile],
    trustAnnotations: true,
    approval: { flaky_write: 'never' },
  };
}
