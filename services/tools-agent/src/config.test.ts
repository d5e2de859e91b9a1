import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { ConfigError } from '@fleet/errors';
import { loadToolsAgentConfig, loadToolServers } from './config';

const TOKEN = { FLEET_INTERNAL_TOKEN: 'x'.repeat(16) };

describe('loadToolsAgentConfig', () => {
  it('listens on 8088 with bounded calls and approvals by default', () => {
    const config = loadToolsAgentConfig(TOKEN);
    expect(config).toMatchObject({
      port: 8088,
      callTimeoutMs: 60_000,
      maxResultBytes: 4 * 1024 * 1024,
      maxToolsPerServer: 256,
      maxRounds: 4,
      approvalTtlSeconds: 900,
    });
    expect(config.mcpServers).toBeUndefined();
  });

  it('fails at boot naming MCP_SERVERS and the entry at fault', () => {
    expect(() =>
      loadToolsAgentConfig({ ...TOKEN, MCP_SERVERS: '{"mcpServers":{"fs":{"command":""}}}' }),
    ).toThrow(/MCP_SERVERS.*mcpServers\.fs\.command/s);
  });
});

describe('loadToolServers', () => {
  it('prefers MCP_SERVERS, then MCP_SERVERS_FILE, then the built-in filesystem server', async () => {
    const directory = mkdtempSync(path.join(tmpdir(), 'tools-agent-config-'));
    const file = path.join(directory, 'servers.json');
    writeFileSync(file, '{"mcpServers":{"from-file":{"url":"http://127.0.0.1:9/mcp"}}}');
    const json = '{"mcpServers":{"from-json":{"command":"node"}}}';

    const fromJson = await loadToolServers({
      mcpServers: json,
      mcpServersFile: file,
      filesystemDir: directory,
    });
    expect([...fromJson.servers.keys()]).toEqual(['from-json']);
    expect(fromJson.source).toBe('MCP_SERVERS');

    const fromFile = await loadToolServers({
      mcpServers: undefined,
      mcpServersFile: file,
      filesystemDir: directory,
    });
    expect([...fromFile.servers.keys()]).toEqual(['from-file']);

    const builtIn = await loadToolServers({
      mcpServers: undefined,
      mcpServersFile: undefined,
      filesystemDir: directory,
    });
    const filesystem = builtIn.servers.get('filesystem');
    expect(filesystem).toMatchObject({ command: process.execPath, trustAnnotations: true });
    const args = filesystem !== undefined && 'args' in filesystem ? (filesystem.args ?? []) : [];
    expect(args[0]).toMatch(/server-filesystem[/\\]dist[/\\]index\.js$/);
    expect(existsSync(args[0] ?? '')).toBe(true);
    expect(args[1]).toBe(directory);

    const none = await loadToolServers({
      mcpServers: undefined,
      mcpServersFile: undefined,
      filesystemDir: undefined,
    });
    expect(none).toMatchObject({ source: 'none' });
    expect(none.servers.size).toBe(0);
  });

  it('names MCP_SERVERS_FILE when it cannot be read', async () => {
    await expect(
      loadToolServers({
        mcpServers: undefined,
        mcpServersFile: '/nonexistent/servers.json',
        filesystemDir: undefined,
      }),
    ).rejects.toThrow(ConfigError);
  });
});
