import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { McpServerConfig } from '@fleet/mcp';
import { createRecordingTracer } from '@fleet/testing';
import { ToolError, type ReasoningTool } from '../tools';
import { createMcpToolbox, type McpToolbox } from './create-mcp-toolbox';

function serverScript(name: string): string {
  return join(
    dirname(require.resolve(`@modelcontextprotocol/${name}/package.json`)),
    'dist',
    'index.js',
  );
}

const GRAPH = [
  {
    type: 'entity',
    name: 'Ada Lovelace',
    entityType: 'person',
    observations: ['wrote the first published program', 'worked with Charles Babbage'],
  },
  {
    type: 'entity',
    name: 'Analytical Engine',
    entityType: 'machine',
    observations: ['designed 1837'],
  },
  { type: 'relation', from: 'Ada Lovelace', to: 'Analytical Engine', relationType: 'programmed' },
];

function named(tools: readonly ReasoningTool[], name: string): ReasoningTool {
  const found = tools.find((tool) => tool.name === name);
  if (found === undefined)
    throw new Error(`no tool ${name} among ${tools.map((t) => t.name).join(', ')}`);
  return found;
}

describe('createMcpToolbox', () => {
  let directory: string;
  let toolbox: McpToolbox;
  const tracing = createRecordingTracer();

  beforeAll(() => {
    directory = mkdtempSync(join(tmpdir(), 'reasoning-mcp-'));
    const memoryFile = join(directory, 'memory.jsonl');
    writeFileSync(memoryFile, GRAPH.map((line) => JSON.stringify(line)).join('\n'));
    mkdirNotes(directory);
    const servers = new Map<string, McpServerConfig>([
      [
        'memory',
        {
          command: process.execPath,
          args: [serverScript('server-memory')],
          env: { MEMORY_FILE_PATH: memoryFile },
          trustAnnotations: true,
        },
      ],
      [
        'files',
        {
          command: process.execPath,
          args: [serverScript('server-filesystem'), join(directory, 'notes')],
          trustAnnotations: true,
        },
      ],
      // Its annotations are not trusted: every tool counts as destructive and needs approval …
      [
        'untrusted',
        {
          command: process.execPath,
          args: [serverScript('server-memory')],
          env: { MEMORY_FILE_PATH: memoryFile },
        },
      ],
      // … and a server that cannot start is left out without taking the others with it.
      ['broken', { command: join(directory, 'no-such-server') }],
    ]);
    toolbox = createMcpToolbox({
      servers,
      maxResultChars: 400,
      connection: { tracer: tracing.tracer, connectTimeoutMs: 10_000 },
    });
  });

  afterAll(async () => {
    await toolbox.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('offers only the tools that need no approval, prefixed so built-in names stay free', async () => {
    const tools = await toolbox.tools();
    const names = tools.map((tool) => tool.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'mcp__memory__read_graph',
        'mcp__memory__search_nodes',
        'mcp__memory__open_nodes',
        'mcp__files__read_text_file',
        'mcp__files__list_directory',
      ]),
    );
    // Writers (trusted hints say so) and every tool of the untrusted server need approval.
    for (const writer of [
      'mcp__memory__create_entities',
      'mcp__memory__delete_entities',
      'mcp__files__write_file',
      'mcp__files__edit_file',
      'mcp__files__move_file',
    ]) {
      expect(names).not.toContain(writer);
    }
    expect(names.filter((name) => name.startsWith('mcp__untrusted__'))).toEqual([]);
    expect(names.filter((name) => name.startsWith('mcp__broken__'))).toEqual([]);
    expect(names.every((name) => /^mcp__[A-Za-z0-9_-]{1,59}$/.test(name))).toBe(true);

    const search = named(tools, 'mcp__memory__search_nodes');
    expect(search.description).toContain('Search for nodes in the knowledge graph');
    expect(search.description).toContain('(MCP tool memory/search_nodes)');
    expect(search.parameters).toMatchObject({
      type: 'object',
      properties: { query: { type: 'string' } },
      required: ['query'],
    });
    expect(search.parameters).not.toHaveProperty('$schema');
  });

  it('leaves out the tools a tool policy does not permit', async () => {
    const names = (
      await toolbox.tools({
        policies: [{ deny: ['memory/read_graph'] }, { allow: ['memory/*', 'files/list_*'] }],
      })
    ).map((tool) => tool.name);
    expect(names).toContain('mcp__memory__search_nodes');
    expect(names).toContain('mcp__files__list_directory');
    expect(names).not.toContain('mcp__memory__read_graph');
    expect(names).not.toContain('mcp__files__read_text_file');
  });

  it('calls the server with checked arguments and reads its text back', async () => {
    const tools = await toolbox.tools();
    const output = await named(tools, 'mcp__memory__search_nodes').run('{"query":"Babbage"}');
    expect(output).toContain('Ada Lovelace');
    expect(output).not.toContain('designed 1837');
  });

  it('refuses arguments that do not fit the input schema before calling the server', async () => {
    const tools = await toolbox.tools();
    tracing.spans.length = 0;
    const search = named(tools, 'mcp__memory__search_nodes');
    await expect(Promise.resolve().then(() => search.run('{"query":42}'))).rejects.toThrow(
      /^The arguments of memory\/search_nodes do not fit its input schema\. query: Instance type "number" is invalid\. Expected "string"\.$/,
    );
    await expect(Promise.resolve().then(() => search.run('{}'))).rejects.toThrow(
      /do not fit its input schema\. .*"query"/,
    );
    await expect(Promise.resolve().then(() => search.run('[1]'))).rejects.toThrow(ToolError);
    await expect(Promise.resolve().then(() => search.run('{query'))).rejects.toThrow(
      /not valid JSON/,
    );
    // None of them reached the server: no TOOL span of the connection.
    expect(tracing.spans.filter((span) => span.name.startsWith('mcp.memory.'))).toEqual([]);
  });

  it("turns the server's error result into a tool error the model reads", async () => {
    const tools = await toolbox.tools();
    const read = named(tools, 'mcp__files__read_text_file');
    await expect(read.run(JSON.stringify({ path: '/etc/passwd' }))).rejects.toThrow(ToolError);
    await expect(read.run(JSON.stringify({ path: '/etc/passwd' }))).rejects.toThrow(
      /denied|outside|not allowed/i,
    );
  });

  it('cuts a long result to maxResultChars and says how much was left out', async () => {
    const tools = await toolbox.tools();
    const output = await named(tools, 'mcp__files__read_text_file').run(
      JSON.stringify({ path: join(directory, 'notes', 'long.md') }),
    );
    expect(output.startsWith('x'.repeat(400))).toBe(true);
    expect(output).toMatch(/\n\[… 4600 more characters of this result were cut\]$/);
  });

  it('offers nothing once closed, and its stdio servers are gone', async () => {
    // server-memory ignores its arguments: this one marks the process to look for.
    const marker = `--reasoning-toolbox-close-${process.pid}-${Date.now()}`;
    const running = (): boolean =>
      execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' }).includes(marker);
    const other = createMcpToolbox({
      servers: new Map([
        [
          'memory',
          {
            command: process.execPath,
            args: [serverScript('server-memory'), marker],
            env: { MEMORY_FILE_PATH: join(directory, 'memory.jsonl') },
            trustAnnotations: true,
          },
        ],
      ]),
    });
    expect((await other.tools()).length).toBeGreaterThan(0);
    expect(running()).toBe(true);
    await other.close();
    expect(running()).toBe(false);
    expect(await other.tools()).toEqual([]);
  });
});

function mkdirNotes(directory: string): void {
  const notes = join(directory, 'notes');
  mkdirSync(notes);
  writeFileSync(join(notes, 'todo.md'), '- buy milk\n- call Ada\n');
  writeFileSync(join(notes, 'long.md'), 'x'.repeat(5000));
}
