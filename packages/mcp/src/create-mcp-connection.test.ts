import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import { AbortError } from '@fleet/errors';
import { createRecordingTracer } from '@fleet/testing';
import { propagation } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { writeBadServer } from './__fixtures__/bad-server';
import { writeHostileServer } from './__fixtures__/hostile-server';
import {
  createMcpConnection,
  type McpConnection,
  type McpConnectionOptions,
  type McpElicitationContext,
  type McpElicitationRequest,
} from './create-mcp-connection';
import {
  McpOutputSchemaError,
  McpProtocolError,
  McpResultTooLargeError,
  McpServerUnavailableError,
  McpTimeoutError,
} from './mcp-errors';

function serverScript(name: string): string {
  const manifest = require.resolve(`@modelcontextprotocol/${name}/package.json`);
  return join(dirname(manifest), 'dist', 'index.js');
}

const EVERYTHING = serverScript('server-everything');
const open: McpConnection[] = [];

function connect(...args: Parameters<typeof createMcpConnection>): McpConnection {
  const connection = createMcpConnection(...args);
  open.push(connection);
  return connection;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function textOf(result: { content?: unknown }): string {
  const content = result.content as { type: string; text?: string }[];
  return content.map((block) => block.text ?? '').join('');
}

afterEach(async () => {
  await Promise.all(open.splice(0).map((connection) => connection.close()));
});

describe('createMcpConnection against server-everything (stdio)', () => {
  it('lists tools with annotations, calls one, and reads structured output', async () => {
    const everything = connect('everything', {
      command: process.execPath,
      args: [EVERYTHING, 'stdio'],
      trustAnnotations: true,
      approval: { echo: 'never' },
    });
    const { tools, truncated } = await everything.listTools();
    expect(truncated).toBe(false);
    const names = tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['echo', 'get-sum', 'get-structured-content']));
    const longRunning = tools.find((tool) => tool.name === 'trigger-long-running-operation');
    expect(longRunning?.annotations?.readOnlyHint).toBe(true);
    expect(longRunning?.hints).toEqual({
      readOnly: true,
      destructive: false,
      idempotent: true,
      openWorld: false,
    });
    expect(tools.find((tool) => tool.name === 'echo')?.approval).toBe('never');

    const echoed = await everything.callTool('echo', { message: 'hello' });
    expect(textOf(echoed)).toContain('hello');
    const structured = await everything.callTool('get-structured-content', {
      location: 'New York',
    });
    expect(structured.structuredContent).toMatchObject({ temperature: expect.any(Number) });
  });

  it('treats annotations as untrusted unless the entry trusts them, and filters allow/deny', async () => {
    const everything = connect('everything', {
      command: process.execPath,
      args: [EVERYTHING, 'stdio'],
      allowTools: ['echo', 'get-sum', 'trigger-long-running-operation'],
      denyTools: ['get-sum'],
    });
    const { tools } = await everything.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([
      'echo',
      'trigger-long-running-operation',
    ]);
    expect(tools[0]?.hints).toEqual({
      readOnly: false,
      destructive: true,
      idempotent: false,
      openWorld: true,
    });
    await expect(everything.callTool('get-sum', { a: 1, b: 2 })).rejects.toThrow(
      /"get-sum" of the MCP server "everything" is not allowed/,
    );
  });

  it('reports progress, and cancels on time-out with a typed error within the limit', async () => {
    const everything = connect('everything', {
      command: process.execPath,
      args: [EVERYTHING, 'stdio'],
    });
    const progress: number[] = [];
    const done = await everything.callTool(
      'trigger-long-running-operation',
      { duration: 0.6, steps: 3 },
      { onProgress: (update) => progress.push(update.progress) },
    );
    expect(textOf(done)).toContain('completed');
    // The last notification races the result it precedes; the SDK drops one that arrives after.
    expect(progress.slice(0, 2)).toEqual([1, 2]);

    const started = Date.now();
    const error = await everything
      .callTool('trigger-long-running-operation', { duration: 30, steps: 30 }, { timeoutMs: 300 })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(McpTimeoutError);
    expect((error as Error).message).toMatch(
      /did not answer within 300 ms; the call was cancelled/,
    );
    expect(Date.now() - started).toBeLessThan(3000);
    // The connection is still good after the cancellation.
    expect(textOf(await everything.callTool('echo', { message: 'after' }))).toContain('after');
  });

  it('turns an abort into AbortError', async () => {
    const everything = connect('everything', {
      command: process.execPath,
      args: [EVERYTHING, 'stdio'],
    });
    await everything.connect();
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    await expect(
      everything.callTool(
        'trigger-long-running-operation',
        { duration: 30, steps: 30 },
        { signal: controller.signal },
      ),
    ).rejects.toBeInstanceOf(AbortError);
  });

  it('restarts a killed server on the next call, and leaves no process after close', async () => {
    const everything = connect('everything', {
      command: process.execPath,
      args: [EVERYTHING, 'stdio'],
    });
    await everything.connect();
    const first = everything.pid;
    expect(first).toBeDefined();
    process.kill(first as number, 'SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(textOf(await everything.callTool('echo', { message: 'again' }))).toContain('again');
    const second = everything.pid;
    expect(second).toBeDefined();
    expect(second).not.toBe(first);
    await everything.close();
    expect(isAlive(second as number)).toBe(false);
    await expect(everything.callTool('echo', { message: 'x' })).rejects.toBeInstanceOf(
      McpServerUnavailableError,
    );
  });

  it('sends the TOOL span as _meta.traceparent and records it', async () => {
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    try {
      const { tracer, spans } = createRecordingTracer();
      const paged = connect(
        'paged',
        { command: process.execPath, args: [writeHostileServer(), 'paged'] },
        { tracer },
      );
      const result = await paged.callTool('tool-0', { q: 1 });
      const meta = JSON.parse(textOf(result)) as Record<string, unknown>;
      expect(meta['traceparent']).toMatch(/^00-0{31}1-0{15}1-01$/);
      expect(spans[0]).toMatchObject({
        name: 'mcp.paged.tool-0',
        ended: true,
        attributes: { 'openinference.span.kind': 'TOOL', 'tool.name': 'tool-0' },
      });
    } finally {
      propagation.disable();
    }
  });
});

describe('createMcpConnection against server-everything (Streamable HTTP)', () => {
  it('lists and calls tools over HTTP, and reports an unset bearer token by its variable', async () => {
    const port = await freePort();
    const child = spawn(process.execPath, [EVERYTHING, 'streamableHttp'], {
      env: { ...process.env, PORT: String(port) },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    try {
      await new Promise<void>((resolve, reject) => {
        child.stderr.on('data', (chunk: Buffer) => {
          if (chunk.toString().includes('listening')) resolve();
        });
        child.once('exit', () => reject(new Error('server-everything exited')));
      });
      const url = `http://127.0.0.1:${port}/mcp`;
      const http = connect('everything-http', { url });
      const { tools } = await http.listTools();
      expect(tools.map((tool) => tool.name)).toContain('echo');
      const progress: number[] = [];
      await http.callTool(
        'trigger-long-running-operation',
        { duration: 0.4, steps: 2 },
        { onProgress: (update) => progress.push(update.progress) },
      );
      expect(progress[0]).toBe(1);
      expect(textOf(await http.callTool('echo', { message: 'over http' }))).toContain('over http');

      const secured = connect(
        'secured',
        { url, bearerTokenEnv: 'FLEET_TEST_MCP_TOKEN' },
        { env: {} },
      );
      await expect(secured.listTools()).rejects.toThrow(
        /"secured" needs a bearer token from FLEET_TEST_MCP_TOKEN, which is not set/,
      );
    } finally {
      child.kill('SIGKILL');
    }
  });
});

describe('createMcpConnection against a Streamable HTTP server that floods', () => {
  it('stops reading an answer past the size cap and throws the typed error', async () => {
    let sent = 0;
    const server = createHttpServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        if (request.method !== 'POST') return void response.writeHead(405).end();
        const message = JSON.parse(body) as {
          id?: number;
          method: string;
          params?: { protocolVersion?: string };
        };
        if (message.id === undefined) return void response.writeHead(202).end();
        const reply = (result: unknown) => {
          const text = JSON.stringify({ jsonrpc: '2.0', id: message.id, result });
          sent += text.length;
          response.writeHead(200, { 'content-type': 'application/json' }).end(text);
        };
        if (message.method === 'initialize') {
          return reply({
            protocolVersion: message.params?.protocolVersion,
            capabilities: { tools: {} },
            serverInfo: { name: 'flood-http', version: '1.0.0' },
          });
        }
        if (message.method === 'tools/list') return reply({ tools: [] });
        reply({ content: [{ type: 'text', text: 'x'.repeat(8 * 1024 * 1024) }] });
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const flood = connect(
        'flood-http',
        { url: `http://127.0.0.1:${port}/mcp` },
        { maxResultBytes: 1024 * 1024 },
      );
      await expect(flood.listTools()).resolves.toMatchObject({ tools: [] });
      const error = await flood
        .callTool('any', {}, { timeoutMs: 5000 })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(McpResultTooLargeError);
      expect((error as Error).message).toMatch(
        /"flood-http" sent an answer larger than 1114112 bytes/,
      );
      expect(sent).toBeGreaterThan(8 * 1024 * 1024);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('createMcpConnection against server-filesystem and server-memory (stdio)', () => {
  it('reads a file through server-filesystem with trusted annotations', async () => {
    const root = mkdtempSync(join(tmpdir(), 'fleet-mcp-fs-'));
    writeFileSync(join(root, 'a.txt'), 'alpha');
    const fs = connect('filesystem', {
      command: process.execPath,
      args: [serverScript('server-filesystem'), root],
      trustAnnotations: true,
    });
    const { tools } = await fs.listTools();
    expect(tools.find((tool) => tool.name === 'write_file')?.hints.destructive).toBe(true);
    expect(tools.find((tool) => tool.name === 'read_text_file')?.hints.readOnly).toBe(true);
    const result = await fs.callTool('read_text_file', { path: join(root, 'a.txt') });
    expect(textOf(result)).toContain('alpha');
    expect(result.structuredContent).toMatchObject({ content: 'alpha' });
  });

  it('writes and reads the memory graph through server-memory', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'fleet-mcp-memory-')), 'memory.jsonl');
    const memory = connect('memory', {
      command: process.execPath,
      args: [serverScript('server-memory')],
      env: { MEMORY_FILE_PATH: file },
    });
    expect((await memory.listTools()).tools.map((tool) => tool.name)).toContain('create_entities');
    await memory.callTool('create_entities', {
      entities: [{ name: 'Ada', entityType: 'person', observations: ['writes programs'] }],
    });
    const graph = await memory.callTool('read_graph', {});
    expect(graph.structuredContent).toMatchObject({
      entities: [expect.objectContaining({ name: 'Ada' })],
    });
    expect(readFileSync(file, 'utf8')).toContain('Ada');
  });
});

describe('createMcpConnection answering elicitations (server-everything over stdio)', () => {
  const ELICIT = 'trigger-elicitation-request';

  it('declares no elicitation capability without a handler, so the server offers no such tool', async () => {
    const everything = connect('everything', {
      command: process.execPath,
      args: [EVERYTHING, 'stdio'],
    });
    const { tools } = await everything.listTools();
    expect(tools.map((tool) => tool.name)).toContain('echo');
    expect(tools.map((tool) => tool.name)).not.toContain(ELICIT);
  });

  it('accepts (with the schema defaults filled in), declines and cancels, and says which call asked', async () => {
    const seen: McpElicitationContext[] = [];
    const requests: McpElicitationRequest[] = [];
    const everything = connect(
      'everything',
      { command: process.execPath, args: [EVERYTHING, 'stdio'] },
      {
        onElicitation: (request, context) => {
          requests.push(request);
          seen.push(context);
          return Promise.resolve({ action: 'accept', content: { name: 'Ada', check: true } });
        },
      },
    );
    const { tools } = await everything.listTools();
    expect(tools.map((tool) => tool.name)).toContain(ELICIT);

    const accepted = textOf(await everything.callTool(ELICIT, {}));
    expect(accepted).toContain('User provided the requested information');
    expect(accepted).toContain('- Name: Ada');
    expect(accepted).toContain('- Agreed to terms: true');
    // Defaults of the fields the answer left out.
    expect(accepted).toContain('- Favorite Integer: 42');
    expect(accepted).toContain('"untitledSingleSelectEnum": "Monica"');
    expect(requests[0]?.message).toBe('Please provide inputs for the following fields:');
    expect(requests[0]?.requestedSchema.required).toEqual(['name']);
    expect(seen[0]).toMatchObject({ server: 'everything', toolCall: { name: ELICIT } });
    expect(seen[0]?.signal.aborted).toBe(true); // released once answered

    // A call's own handler wins over the connection's.
    const declined = textOf(
      await everything.callTool(
        ELICIT,
        {},
        { onElicitation: () => Promise.resolve({ action: 'decline' }) },
      ),
    );
    expect(declined).toContain('User declined to provide the requested information');
    const cancelled = textOf(
      await everything.callTool(
        ELICIT,
        {},
        { onElicitation: () => Promise.resolve({ action: 'cancel' }) },
      ),
    );
    expect(cancelled).toContain('User cancelled the elicitation dialog');
    expect(requests).toHaveLength(1);
  });

  it('answers cancel when the call is about to time out, and refuses an answer that breaks the schema', async () => {
    const everything = connect(
      'everything',
      { command: process.execPath, args: [EVERYTHING, 'stdio'] },
      { onElicitation: () => Promise.resolve({ action: 'decline' }) },
    );
    await everything.listTools();
    let aborted = false;
    const started = Date.now();
    const late = await everything.callTool(
      ELICIT,
      {},
      {
        timeoutMs: 2000,
        onElicitation: (_request, { signal }) =>
          new Promise((resolve) =>
            signal.addEventListener('abort', () => {
              aborted = true;
              resolve({ action: 'accept', content: { name: 'too late' } });
            }),
          ),
      },
    );
    expect(textOf(late)).toContain('User cancelled the elicitation dialog');
    expect(aborted).toBe(true);
    expect(Date.now() - started).toBeLessThan(2000);

    const invalid = await everything.callTool(
      ELICIT,
      {},
      {
        onElicitation: () =>
          Promise.resolve({ action: 'accept', content: { name: 'Ada', integer: 500 } }),
      },
    );
    expect(invalid.isError).toBe(true);
    expect(textOf(invalid)).toMatch(/does not match the requested schema.*integer/);
  });
});

describe('createMcpConnection against misbehaving servers', () => {
  function startBad(
    mode: string,
    options: McpConnectionOptions = {},
    env?: Record<string, string>,
  ) {
    return connect(
      `bad-${mode}`,
      { command: process.execPath, args: [writeBadServer(), mode], ...(env ? { env } : {}) },
      { restartDelayMs: 0, ...options },
    );
  }

  async function failsTyped(
    connection: McpConnection,
    tool: string,
    type: abstract new (...args: never[]) => Error,
  ): Promise<Error> {
    const started = Date.now();
    const error = await connection
      .callTool(tool, {}, { timeoutMs: 5000 })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(type);
    expect(Date.now() - started).toBeLessThan(5000);
    return error as Error;
  }

  it('crashes mid-call: unavailable at once, no process left, restarted on the next call', async () => {
    const bad = startBad('bad');
    await bad.connect();
    const first = bad.pid as number;
    const error = await failsTyped(bad, 'crash', McpServerUnavailableError);
    expect(error.message).toMatch(
      /"crash" of the MCP server "bad-bad" failed: the server went away/,
    );
    await waitFor(() => !isAlive(first));
    expect(textOf(await bad.callTool('echo', { message: 'back' }))).toBe('back');
    expect(bad.pid).not.toBe(first);
  });

  it('never answers initialize: unavailable after the connect time-out, no process left', async () => {
    const pidFile = join(mkdtempSync(join(tmpdir(), 'fleet-mcp-')), 'server.pid');
    const mute = startBad('mute', { connectTimeoutMs: 400 }, { PID_FILE: pidFile });
    const started = Date.now();
    await expect(mute.listTools()).rejects.toBeInstanceOf(McpServerUnavailableError);
    expect(Date.now() - started).toBeLessThan(4000);
    await waitFor(() => !isAlive(Number(readFileSync(pidFile, 'utf8'))));
  });

  it('floods stdout with lines that are not JSON, or answers JSON that is not JSON-RPC: a protocol error, then a fresh server', async () => {
    const bad = startBad('bad');
    for (const tool of ['junk', 'not-rpc']) {
      await bad.connect();
      const pid = bad.pid as number;
      const error = await failsTyped(bad, tool, McpProtocolError);
      expect(error.message).toMatch(/"bad-bad" wrote something that is not JSON-RPC on stdout/);
      await waitFor(() => !isAlive(pid));
      expect(textOf(await bad.callTool('echo', { message: tool }))).toBe(tool);
    }
  });

  it('answers with one 50 MB line: too large, read no further than the cap, memory bounded', async () => {
    const written = join(mkdtempSync(join(tmpdir(), 'fleet-mcp-')), 'written');
    const bad = startBad('bad', {}, { WRITTEN_FILE: written });
    await bad.connect();
    const pid = bad.pid as number;
    const baseline = process.memoryUsage().arrayBuffers;
    let peak = baseline;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().arrayBuffers);
    }, 2);
    try {
      const error = await failsTyped(bad, 'huge', McpResultTooLargeError);
      // The default cap: 4 MiB of result plus 64 KiB of envelope.
      expect(error.message).toMatch(/"bad-bad" sent a message larger than 4259840 bytes/);
    } finally {
      clearInterval(sampler);
    }
    await waitFor(() => !isAlive(pid));
    // The server could push little more than the cap before its pipe closed.
    const through = existsSync(written) ? Number(readFileSync(written, 'utf8')) : 0;
    expect(through).toBeLessThan(12 * 1024 * 1024);
    expect(peak - baseline).toBeLessThan(24 * 1024 * 1024);
    expect(textOf(await bad.callTool('echo', { message: 'small' }))).toBe('small');
  });

  it('lists 10,000 tools, or pages without end: truncated at maxTools, quickly', async () => {
    const many = startBad('many-tools');
    const started = Date.now();
    const list = await many.listTools();
    expect(list.truncated).toBe(true);
    expect(list.tools).toHaveLength(1000);
    expect(list.tools[999]?.name).toBe('tool-999');
    const fewer = startBad('many-tools', { maxTools: 25 });
    expect((await fewer.listTools()).tools).toHaveLength(25);
    const endless = startBad('endless-pages', { maxTools: 20 });
    expect(await endless.listTools()).toEqual({ tools: [], truncated: true });
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('changes its tool list during a call: tools-change carries the new list, the call completes', async () => {
    const bad = startBad('bad');
    expect((await bad.listTools()).tools.map((tool) => tool.name)).not.toContain('grown');
    const changes: string[][] = [];
    bad.on('tools-change', (list) => changes.push(list.tools.map((tool) => tool.name)));
    const result = await bad.callTool('slow-grow');
    expect(textOf(result)).toBe('grew');
    expect(changes).toHaveLength(1);
    expect(changes[0]).toContain('grown');
    expect((await bad.listTools()).tools.map((tool) => tool.name)).toContain('grown');
  });

  it('returns structured content that breaks its outputSchema, or none: McpOutputSchemaError', async () => {
    const bad = startBad('bad');
    await bad.listTools();
    const broken = await failsTyped(bad, 'bad-output', McpOutputSchemaError);
    expect(broken.message).toMatch(
      /"bad-output" of the MCP server "bad-bad" returned structured content that does not match its outputSchema: .*temperature/,
    );
    const missing = await failsTyped(bad, 'no-output', McpOutputSchemaError);
    expect(missing.message).toMatch(/declares an outputSchema but returned no structured content/);
    expect((await bad.callTool('good-output')).structuredContent).toEqual({ temperature: 21 });
  });
});

describe('createMcpConnection against hostile servers', () => {
  it('drains pagination, caps the total with a truncation flag, and re-lists on tools/list_changed', async () => {
    const script = writeHostileServer();
    const paged = connect('paged', { command: process.execPath, args: [script, 'paged', '7'] });
    const all = await paged.listTools();
    expect(all).toMatchObject({ truncated: false });
    expect(all.tools.map((tool) => tool.name)).toEqual(
      [0, 1, 2, 3, 4, 5, 6].map((i) => `tool-${i}`),
    );

    const changed = new Promise<number>((resolve) =>
      paged.on('tools-change', (list) => resolve(list.tools.length)),
    );
    await paged.callTool('grow');
    expect(await changed).toBe(8);
    expect((await paged.listTools()).tools).toHaveLength(8);

    const capped = connect(
      'capped',
      { command: process.execPath, args: [script, 'paged', '7'] },
      { maxTools: 3 },
    );
    const list = await capped.listTools();
    expect(list.truncated).toBe(true);
    expect(list.tools).toHaveLength(3);
  });

  it('times out a server that never answers, within the limit, and tells it so', async () => {
    const cancelLog = join(mkdtempSync(join(tmpdir(), 'fleet-mcp-')), 'cancelled.jsonl');
    const hang = connect('hang', {
      command: process.execPath,
      args: [writeHostileServer(), 'hang'],
      env: { CANCEL_LOG: cancelLog },
    });
    await hang.connect();
    const started = Date.now();
    await expect(hang.callTool('tool-0', {}, { timeoutMs: 250 })).rejects.toBeInstanceOf(
      McpTimeoutError,
    );
    expect(Date.now() - started).toBeLessThan(2000);
    await waitFor(() => existsSync(cancelLog));
    expect(JSON.parse(readFileSync(cancelLog, 'utf8'))).toMatchObject({
      requestId: expect.anything(),
    });
  });

  it('ends the whole process group of the server on close and when the server dies', async () => {
    const script = writeHostileServer();
    for (const ending of ['close', 'crash'] as const) {
      const pidFile = join(mkdtempSync(join(tmpdir(), 'fleet-mcp-')), 'grandchild.pid');
      const spawner = connect('spawner', {
        command: process.execPath,
        args: [script, 'spawner'],
        env: { PID_FILE: pidFile },
      });
      await spawner.listTools();
      const server = spawner.pid as number;
      await waitFor(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8') !== '');
      const grandchild = Number(readFileSync(pidFile, 'utf8'));
      expect(isAlive(grandchild)).toBe(true);
      if (ending === 'close') await spawner.close();
      else process.kill(server, 'SIGKILL');
      await waitFor(() => !isAlive(server) && !isAlive(grandchild));
    }
  });

  it('refuses a flood past the size cap without holding it, and stops the server', async () => {
    const flood = connect(
      'flood',
      { command: process.execPath, args: [writeHostileServer(), 'flood'] },
      { maxResultBytes: 1024 * 1024 },
    );
    await flood.connect();
    const pid = flood.pid as number;
    const error = await flood.callTool('tool-0').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(McpResultTooLargeError);
    expect((error as Error).message).toMatch(/"flood" sent a message larger than 1114112 bytes/);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(isAlive(pid)).toBe(false);
  });

  it('turns a line that is not JSON into a typed error, without crashing', async () => {
    const garbage = connect('garbage', {
      command: process.execPath,
      args: [writeHostileServer(), 'garbage'],
    });
    const error = await garbage
      .callTool('tool-0', {}, { timeoutMs: 5000 })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(McpProtocolError);
    expect((error as Error).message).toMatch(
      /"garbage" wrote something that is not JSON-RPC on stdout/,
    );
    // The next use restarts the server (and meets the same failure, typed again).
    await expect(garbage.callTool('tool-0', {}, { timeoutMs: 5000 })).rejects.toBeInstanceOf(
      McpProtocolError,
    );
  });

  it('reports a command that cannot start as unavailable, then backs off', async () => {
    const missing = connect(
      'missing',
      { command: '/nonexistent/mcp-server' },
      { restartDelayMs: 60_000, maxRestartDelayMs: 120_000 },
    );
    await expect(missing.listTools()).rejects.toThrow(/"missing" could not be started/);
    await expect(missing.listTools()).rejects.toThrow(/"missing" could not be started/);
    await expect(missing.listTools()).rejects.toThrow(/restarted on the next use after 60 s/);
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}
