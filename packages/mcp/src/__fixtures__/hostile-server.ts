import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A tiny MCP server speaking raw newline-delimited JSON-RPC, whose behaviour the first argument
 * picks: `paged` (tools in pages of 2, `grow` adds one and sends tools/list_changed, `meta` echoes
 * the request's _meta), `hang` (never answers tools/call), `flood` (answers tools/call with 20 MB),
 * `garbage` (answers tools/call with a line that is not JSON), `spawner` (like `paged`, after starting
 * a grandchild whose pid it writes to `PID_FILE`). `CANCEL_LOG` names a file that receives each
 * `notifications/cancelled`.
 */
const SCRIPT = String.raw`
const mode = process.argv[2];
let tools = Number(process.argv[3] ?? 5);
let buffer = '';
const send = (message) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...message }) + '\n');
process.stdin.on('data', (chunk) => {
  buffer += chunk;
  let index;
  while ((index = buffer.indexOf('\n')) !== -1) {
    const line = buffer.slice(0, index);
    buffer = buffer.slice(index + 1);
    if (line.trim() !== '') handle(JSON.parse(line));
  }
});
process.stdin.on('end', () => process.exit(0));
if (mode === 'spawner') {
  // A grandchild that holds no pipe: only a process-group signal ends it.
  const grandchild = require('node:child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  require('node:fs').writeFileSync(process.env.PID_FILE, String(grandchild.pid));
}
function handle(message) {
  const { id, method, params } = message;
  if (method === 'notifications/cancelled' && process.env.CANCEL_LOG) {
    require('node:fs').appendFileSync(process.env.CANCEL_LOG, JSON.stringify(params) + '\n');
  }
  if (id === undefined) return;
  if (method === 'initialize') {
    return send({ id, result: { protocolVersion: params.protocolVersion, capabilities: { tools: { listChanged: true } }, serverInfo: { name: 'hostile-' + mode, version: '1.0.0' } } });
  }
  if (method === 'tools/list') {
    const start = params && params.cursor ? Number(params.cursor) : 0;
    const page = [];
    for (let i = start; i < Math.min(tools, start + 2); i += 1) {
      page.push({ name: 'tool-' + i, inputSchema: { type: 'object' } });
    }
    const next = start + 2 < tools ? String(start + 2) : undefined;
    return send({ id, result: { tools: page, ...(next ? { nextCursor: next } : {}) } });
  }
  if (method === 'tools/call') {
    if (mode === 'hang') return;
    if (mode === 'flood') {
      const text = 'x'.repeat(20 * 1024 * 1024);
      return send({ id, result: { content: [{ type: 'text', text }] } });
    }
    if (mode === 'garbage') return process.stdout.write('this is { not json\n');
    if (params.name === 'grow') {
      tools += 1;
      send({ id, result: { content: [{ type: 'text', text: 'grown' }] } });
      return send({ method: 'notifications/tools/list_changed' });
    }
    return send({ id, result: { content: [{ type: 'text', text: JSON.stringify(params._meta ?? {}) }] } });
  }
  send({ id, error: { code: -32601, message: 'Method not found' } });
}
`;

/** Writes the server script into a fresh temporary directory and returns its path. */
export function writeHostileServer(): string {
  const directory = mkdtempSync(join(tmpdir(), 'fleet-mcp-'));
  const path = join(directory, 'hostile-server.cjs');
  writeFileSync(path, SCRIPT);
  return path;
}
