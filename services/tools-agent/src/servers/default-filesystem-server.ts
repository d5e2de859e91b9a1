import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { StdioServerConfig } from '@fleet/mcp';

/** The server name the default filesystem server gets (its tools are `filesystem/<tool>`). */
export const DEFAULT_FILESYSTEM_SERVER = 'filesystem';

/** The entry file of `@modelcontextprotocol/server-filesystem`, resolved from this package. */
function filesystemServerEntry(): string {
  const manifestPath = require.resolve('@modelcontextprotocol/server-filesystem/package.json');
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as {
    bin?: Record<string, string> | string;
  };
  const bin =
    typeof manifest.bin === 'string' ? manifest.bin : manifest.bin?.['mcp-server-filesystem'];
  return path.join(path.dirname(manifestPath), bin ?? 'dist/index.js');
}

/**
 * The `mcpServers` entry of the filesystem server the tools agent brings along
 * (`@modelcontextprotocol/server-filesystem`, a dependency of this package): started with this
 * Node (`process.execPath`) and its resolved entry file, never `npx`, over `directory` only, with
 * `trustAnnotations: true` so its read-only tools run at once and its writing tools ask a person
 * first.
 *
 * @example
 * const servers = new Map([[DEFAULT_FILESYSTEM_SERVER, defaultFilesystemServer('/srv/documents')]]);
 */
export function defaultFilesystemServer(directory: string): StdioServerConfig {
  return {
    command: process.execPath,
    args: [filesystemServerEntry(), path.resolve(directory)],
    trustAnnotations: true,
  };
}
