import { describe, expect, it } from '@jest/globals';
import { createReasoningTools } from '../tools';
import { mcpFunctionName } from './mcp-function-name';

describe('mcpFunctionName', () => {
  it('prefixes the server and keeps only what OpenAI allows in a function name', () => {
    expect(mcpFunctionName('memory', 'read_graph')).toBe('mcp__memory__read_graph');
    expect(mcpFunctionName('db.main', 'run query/v2')).toBe('mcp__db_main__run_query_v2');
  });

  it('never gives a built-in tool name', () => {
    for (const tool of createReasoningTools()) {
      expect(mcpFunctionName('x', tool.name)).not.toBe(tool.name);
    }
  });

  it('cuts long names to 64 characters and tells collisions apart by a hash', () => {
    const long = mcpFunctionName('server', 'a'.repeat(100));
    expect(long).toHaveLength(64);
    expect(long).toMatch(/^mcp__server__a+_[0-9a-f]{8}$/);
    const first = mcpFunctionName('db.main', 'query');
    const second = mcpFunctionName('db_main', 'query', new Set([first]));
    expect(first).toBe('mcp__db_main__query');
    expect(second).toMatch(/^mcp__db_main__query_[0-9a-f]{8}$/);
    expect(second).not.toBe(first);
  });
});
