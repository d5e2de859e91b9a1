import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A small MCP server speaking raw newline-delimited JSON-RPC that misbehaves per tool, so one
 * connection can meet a failure and then show it is usable (or restarted) with `echo`.
 *
 * Tools: `echo` (answers `args.message`), `crash` (exits without answering), `junk` (floods stdout
 * with lines of non-JSON), `not-rpc` (answers with JSON that is not JSON-RPC), `huge` (answers with
 * a 50 MB text in one line, writing how many bytes got through to `WRITTEN_FILE`), `bad-output` (structured content that breaks its `outputSchema`),
 * `no-output` (no structured content though it declares an `outputSchema`), `good-output`,
 * `slow-grow` (adds the tool `grown`, sends tools/list_changed, answers 300 ms later).
 *
 * The first argument picks a mode: `bad` (the above), `stubborn` (also ignores stdin EOF and
 * SIGTERM: only a group SIGKILL ends it), `mute` (never answers `initialize`), `many-tools`
 * (lists 10,000 tools in one page), `endless-pages` (empty pages whose cursor never ends).
 * `PID_FILE` names a file that receives the server's pid.
 */
const SCRIPT = String.raw`
const mode = process.argv[2] ?? 'bad';
const fs = require('node:fs');
if (process.env.PID_FILE) fs.writeFileSync(process.env.PID_FILE, String(process.pid));
const send = (message) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...message }) + '\n');
const schema = { type: 'object', properties: { temperature: { type: 'number' } }, required: ['temperature'] };
const tools = [
  { name: 'echo', inputSchema: { type: 'object' } },
  { name: 'crash', inputSchema: { type: 'object' } },
  { name: 'junk', inputSchema: { type: 'object' } },
  { name: 'not-rpc', inputSchema: { type: 'object' } },
  { name: 'huge', inputSchema: { type: 'object' } },
  { name: 'bad-output', inputSchema: { type: 'object' }, outputSchema: schema },
  { name: 'no-output', inputSchema: { type: 'object' }, outputSchema: schema },
  { name: 'good-output', inputSchema: { type: 'object' }, outputSchema: schema },
  { name: 'slow-grow', inputSchema: { type: 'object' } },
];
let buffer = '';
process.stdin.on('data', (chunk) => {
  buffer += chunk;
  let index;
  while ((index = buffer.indexOf('\n')) !== -1) {
    const line = buffer.slice(0, index);
    buffer = buffer.slice(index + 1);
    if (line.trim() !== '') handle(JSON.parse(line));
  }
});
if (mode === 'stubborn') {
  process.on('SIGTERM', () => {});
  setInterval(() => {}, 1000);
} else {
  process.stdin.on('end', () => process.exit(0));
}
function text(id, value, extra) {
  send({ id, result: { content: [{ type: 'text', text: value }], ...extra } });
}
function handle({ id, method, params }) {
  if (id === undefined) return;
  if (method === 'initialize') {
    if (mode === 'mute') return;
    return send({ id, result: { protocolVersion: params.protocolVersion, capabilities: { tools: { listChanged: true } }, serverInfo: { name: 'bad-' + mode, version: '1.0.0' } } });
  }
  if (method === 'tools/list') {
    if (mode === 'many-tools') {
      const many = [];
      for (let i = 0; i < 10000; i += 1) many.push({ name: 'tool-' + i, inputSchema: { type: 'object' } });
      return send({ id, result: { tools: many } });
    }
    if (mode === 'endless-pages') {
      const next = Number(params?.cursor ?? 0) + 1;
      return send({ id, result: { tools: [], nextCursor: String(next) } });
    }
    return send({ id, result: { tools } });
  }
  if (method !== 'tools/call') return send({ id, error: { code: -32601, message: 'Method not found' } });
  const args = params.arguments ?? {};
  switch (params.name) {
    case 'echo':
      return text(id, String(args.message));
    case 'crash':
      return process.exit(3);
    case 'junk': {
      const line = 'junk '.repeat(200) + '\n';
      let left = 20000;
      const write = () => {
        while (left > 0) {
          left -= 1;
          if (!process.stdout.write(line)) return void process.stdout.once('drain', write);
        }
      };
      process.stdout.on('error', () => process.exit(0));
      return write();
    }
    case 'not-rpc':
      return process.stdout.write(JSON.stringify({ hello: 'world', id }) + '\n');
    case 'huge': {
      // One 50 MB line, written a megabyte at a time; WRITTEN_FILE receives how much got through.
      process.stdout.on('error', () => process.exit(0));
      const head = JSON.stringify({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: '' }] } });
      const cut = head.indexOf('""') + 1;
      const chunk = 'x'.repeat(1024 * 1024);
      let written = 0;
      let left = 50;
      const record = () => process.env.WRITTEN_FILE && fs.writeFileSync(process.env.WRITTEN_FILE, String(written));
      process.stdout.write(head.slice(0, cut));
      const write = () => {
        while (left > 0) {
          left -= 1;
          const ok = process.stdout.write(chunk, () => { written += chunk.length; record(); });
          if (!ok) return void process.stdout.once('drain', write);
        }
        process.stdout.write(head.slice(cut) + '\n');
      };
      return write();
    }
    case 'bad-output':
      return text(id, 'hot', { structuredContent: { temperature: 'hot' } });
    case 'no-output':
      return text(id, 'no structure');
    case 'good-output':
      return text(id, '21', { structuredContent: { temperature: 21 } });
    case 'slow-grow':
      tools.push({ name: 'grown', inputSchema: { type: 'object' } });
      send({ method: 'notifications/tools/list_changed' });
      return setTimeout(() => text(id, 'grew'), 300);
    default:
      return send({ id, error: { code: -32602, message: 'Unknown tool ' + params.name } });
  }
}
`;

/** Writes the server script into a fresh temporary directory and returns its path. */
export function writeBadServer(): string {
  const directory = mkdtempSync(join(tmpdir(), 'fleet-mcp-bad-'));
  const path = join(directory, 'bad-server.cjs');
  writeFileSync(path, SCRIPT);
  return path;
}
