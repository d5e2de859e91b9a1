import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { ConfigError } from '@fleet/errors';
import { loadReasoningMcpServers } from './load-reasoning-mcp-servers';

describe('loadReasoningMcpServers', () => {
  it('reads REASONING_MCP_SERVERS, else the file, else none', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'reasoning-mcp-config-'));
    try {
      const file = join(directory, 'servers.json');
      writeFileSync(file, '{"mcpServers":{"fromFile":{"command":"node"}}}');
      const inline = await loadReasoningMcpServers({
        mcpServers: '{"mcpServers":{"db":{"command":"node","approval":{"query":"never"}}}}',
        mcpServersFile: file,
      });
      expect([...inline.keys()]).toEqual(['db']);
      expect(inline.get('db')).toMatchObject({ approval: { query: 'never' } });
      expect([...(await loadReasoningMcpServers({ mcpServersFile: file })).keys()]).toEqual([
        'fromFile',
      ]);
      expect((await loadReasoningMcpServers({})).size).toBe(0);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it("names the reasoning agent's variables in its errors", async () => {
    const bad = loadReasoningMcpServers({ mcpServers: '{"mcpServers":{"web":{"url":"ftp://x"}}}' });
    await expect(bad).rejects.toThrow(ConfigError);
    await expect(bad).rejects.toThrow(/^REASONING_MCP_SERVERS: mcpServers\.web\.url: /);
    await expect(
      loadReasoningMcpServers({ mcpServersFile: '/nonexistent/servers.json' }),
    ).rejects.toThrow(
      /^REASONING_MCP_SERVERS_FILE \(\/nonexistent\/servers\.json\): cannot be read/,
    );
  });
});
