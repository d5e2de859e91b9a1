import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { ConfigError } from '@fleet/errors';
import { loadMcpServers, MAX_MCP_SERVERS, parseMcpServers } from './mcp-servers-config';

function messageOf(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('parseMcpServers', () => {
  it('reads a desktop client file with stdio and HTTP entries and the fleet fields beside them', () => {
    const servers = parseMcpServers(
      JSON.stringify({
        globalShortcut: 'ignored',
        mcpServers: {
          filesystem: {
            command: 'npx',
            args: ['-y', '@modelcontextprotocol/server-filesystem', '/data'],
            env: { DEBUG: '1' },
            cwd: '/tmp',
            disabled: false,
            denyTools: ['write_file'],
            approval: { move_file: 'always' },
            trustAnnotations: true,
          },
          github: {
            type: 'http',
            url: 'https://example.com/mcp',
            headers: { 'X-Team': 'a' },
            bearerTokenEnv: 'GITHUB_TOKEN',
            timeoutMs: 5000,
          },
        },
      }),
    );
    expect([...servers.keys()]).toEqual(['filesystem', 'github']);
    expect(servers.get('filesystem')).toEqual({
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-filesystem', '/data'],
      env: { DEBUG: '1' },
      cwd: '/tmp',
      denyTools: ['write_file'],
      approval: { move_file: 'always' },
      trustAnnotations: true,
    });
    expect(servers.get('github')).toMatchObject({
      url: 'https://example.com/mcp',
      timeoutMs: 5000,
    });
  });

  it('names the entry and field of a wrong type', () => {
    expect(
      messageOf(() =>
        parseMcpServers({ mcpServers: { fs: { command: 'x', args: 'not-a-list' } } }),
      ),
    ).toMatch(/^MCP_SERVERS: mcpServers\.fs\.args: /);
    expect(
      messageOf(() => parseMcpServers({ mcpServers: { gh: { url: 'ftp://x', timeoutMs: 5 } } })),
    ).toMatch(/^MCP_SERVERS: mcpServers\.gh\.url: must be an http\(s\) URL/);
    expect(
      messageOf(() =>
        parseMcpServers({ mcpServers: { fs: { command: 'x', approval: { a: 'sometimes' } } } }),
      ),
    ).toMatch(/mcpServers\.fs\.approval\.a: /);
    expect(
      messageOf(() =>
        parseMcpServers({ mcpServers: { gh: { url: 'https://x', bearerTokenEnv: 'a b' } } }),
      ),
    ).toMatch(/mcpServers\.gh\.bearerTokenEnv: must be an environment variable name/);
  });

  it('rejects an entry with neither or both of command and url, bad JSON and bad names', () => {
    expect(messageOf(() => parseMcpServers({ mcpServers: { x: { args: [] } } }))).toMatch(
      /mcpServers\.x: give either "command"/,
    );
    expect(messageOf(() => parseMcpServers('{"mcpServers":'))).toMatch(/not valid JSON/);
    expect(messageOf(() => parseMcpServers({ servers: {} }))).toMatch(
      /mcpServers: expected an object/,
    );
    expect(messageOf(() => parseMcpServers({ mcpServers: { 'a b': { command: 'x' } } }))).toMatch(
      /mcpServers\.a b: a server name/,
    );
  });

  it('bounds what input decides: servers, string lengths, list lengths', () => {
    const many = Object.fromEntries(
      Array.from({ length: MAX_MCP_SERVERS + 1 }, (_, index) => [`s${index}`, { command: 'x' }]),
    );
    expect(messageOf(() => parseMcpServers({ mcpServers: many }))).toMatch(/at most 64 servers/);
    expect(
      messageOf(() => parseMcpServers({ mcpServers: { fs: { command: 'x'.repeat(5000) } } })),
    ).toMatch(/mcpServers\.fs\.command: /);
    expect(
      messageOf(() =>
        parseMcpServers({ mcpServers: { fs: { command: 'x', args: Array(300).fill('a') } } }),
      ),
    ).toMatch(/mcpServers\.fs\.args: /);
  });
});

describe('loadMcpServers', () => {
  it('prefers MCP_SERVERS, reads MCP_SERVERS_FILE otherwise, and is empty when neither is set', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'fleet-mcp-')), 'mcp.json');
    writeFileSync(file, JSON.stringify({ mcpServers: { fromFile: { command: 'x' } } }));
    expect([...(await loadMcpServers({ file })).keys()]).toEqual(['fromFile']);
    const json = JSON.stringify({ mcpServers: { fromJson: { command: 'x' } } });
    expect([...(await loadMcpServers({ json, file })).keys()]).toEqual(['fromJson']);
    expect((await loadMcpServers({ json: '', file: '' })).size).toBe(0);
    await expect(loadMcpServers({ file: join(file, 'missing') })).rejects.toThrow(
      /MCP_SERVERS_FILE \(.*missing\): cannot be read/,
    );
    writeFileSync(file, JSON.stringify({ mcpServers: { bad: { command: 1 } } }));
    await expect(loadMcpServers({ file })).rejects.toThrow(/mcpServers\.bad\.command: /);
  });
});
