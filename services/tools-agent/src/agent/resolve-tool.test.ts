import { describe, expect, it } from '@jest/globals';
import { toolApproval, type McpTool } from '@fleet/mcp';
import type { CatalogTool } from '../servers';
import { findJsonArguments } from './find-json-arguments';
import { resolveTool } from './resolve-tool';

function entry(server: string, name: string): CatalogTool {
  const tool: McpTool = {
    name,
    title: undefined,
    description: undefined,
    inputSchema: { type: 'object' },
    outputSchema: undefined,
    annotations: undefined,
    hints: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
    approval: undefined,
  };
  return { server, tool, skillId: `${server}/${name}`, approval: toolApproval(tool) };
}

const tools = [
  entry('filesystem', 'read_file'),
  entry('filesystem', 'read_text_file'),
  entry('memory', 'read_graph'),
  entry('backup', 'read_graph'),
];

describe('resolveTool', () => {
  it("takes the plan's skill when it is a tool skill id", () => {
    expect(
      resolveTool(tools, { skill: 'memory/read_graph', text: 'backup/read_graph' }),
    ).toMatchObject({
      kind: 'tool',
      tool: { skillId: 'memory/read_graph' },
    });
    expect(resolveTool(tools, { skill: 'memory/forget', text: '' })).toEqual({
      kind: 'unknown',
      name: 'memory/forget',
    });
  });

  it('finds <server>/<tool> in the text, then a bare name only one server has', () => {
    expect(
      resolveTool(tools, { skill: 'search', text: 'Use filesystem/read_file.' }),
    ).toMatchObject({
      kind: 'tool',
      tool: { skillId: 'filesystem/read_file' },
    });
    expect(
      resolveTool(tools, { skill: undefined, text: 'read_text_file {"path": "a"}' }),
    ).toMatchObject({
      kind: 'tool',
      tool: { skillId: 'filesystem/read_text_file' },
    });
    expect(resolveTool(tools, { skill: undefined, text: 'call read_graph' })).toMatchObject({
      kind: 'ambiguous',
    });
    expect(resolveTool(tools, { skill: undefined, text: 'memory/write_graph {}' })).toEqual({
      kind: 'unknown',
      name: 'memory/write_graph',
    });
    expect(resolveTool(tools, { skill: undefined, text: 'tidy up' })).toEqual({ kind: 'none' });
  });
});

describe('findJsonArguments', () => {
  it('reads the first JSON object of the text, fenced or not, strings with braces included', () => {
    expect(findJsonArguments('memory/search_nodes {"query": "a } b"} please')).toEqual({
      query: 'a } b',
    });
    expect(
      findJsonArguments('Call it:\n```json\n{"path": "/tmp/x", "n": [1, {"k": 2}]}\n```'),
    ).toEqual({
      path: '/tmp/x',
      n: [1, { k: 2 }],
    });
    expect(findJsonArguments('set {braces} then {"a": 1}')).toEqual({ a: 1 });
    expect(findJsonArguments('no arguments here')).toBeUndefined();
  });
});
