import { readFile } from 'node:fs/promises';
import { ConfigError, formatIssuePath, safeParseJson } from '@fleet/errors';
import { z } from 'zod';

/** At most this many servers in one `mcpServers` object. */
export const MAX_MCP_SERVERS = 64;
/** Longest server name (the key under `mcpServers`). */
export const MAX_SERVER_NAME_LENGTH = 64;
/** Longest `MCP_SERVERS` value or `MCP_SERVERS_FILE` content, in bytes. */
export const MAX_MCP_SERVERS_BYTES = 256 * 1024;

const MAX_STRING = 4096;
const MAX_LIST = 256;
const MAX_TIMEOUT_MS = 60 * 60 * 1000;

/** Server names and tool names: what MCP allows for tool names (2025-11-25), 1–64 characters. */
const nameSchema = z
  .string()
  .min(1)
  .max(MAX_SERVER_NAME_LENGTH)
  .regex(/^[A-Za-z0-9_.-]+$/, 'use only letters, digits, "_", "." and "-"');
const toolNameSchema = z.string().min(1).max(128);
const shortString = z.string().max(MAX_STRING);
const stringMap = z
  .record(z.string().max(256), shortString)
  .refine((map) => Object.keys(map).length <= MAX_LIST, `at most ${MAX_LIST} entries`);
const envVarName = z
  .string()
  .min(1)
  .max(256)
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name');

/** The fleet's own fields, accepted beside the standard ones for either transport. */
const fleetFields = {
  /** Default time-out of a tool call on this server, in milliseconds. */
  timeoutMs: z.number().int().positive().max(MAX_TIMEOUT_MS).optional(),
  /** Whether the server's tool annotations (`readOnlyHint`, …) may be believed. @default false */
  trustAnnotations: z.boolean().optional(),
  /** Only these tools are listed and callable (exact names). */
  allowTools: z.array(toolNameSchema).max(MAX_LIST).optional(),
  /** These tools are never listed or callable; wins over `allowTools`. */
  denyTools: z.array(toolNameSchema).max(MAX_LIST).optional(),
  /** Per-tool approval overrides: `always` asks a person first, `never` does not. */
  approval: z
    .record(toolNameSchema, z.enum(['always', 'never']))
    .refine((map) => Object.keys(map).length <= MAX_LIST, `at most ${MAX_LIST} entries`)
    .optional(),
};

/** A server the client spawns and talks to over stdin/stdout. */
export const stdioServerConfigSchema = z.object({
  type: z.literal('stdio').optional(),
  command: z.string().min(1).max(MAX_STRING),
  args: z.array(shortString).max(MAX_LIST).optional(),
  env: stringMap.optional(),
  cwd: shortString.optional(),
  ...fleetFields,
});

/** A server reached over Streamable HTTP. */
export const httpServerConfigSchema = z.object({
  type: z.enum(['http', 'streamable-http', 'streamableHttp']).optional(),
  url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).max(MAX_STRING),
  headers: stringMap.optional(),
  /** The name of the environment variable holding a bearer token (never the token itself). */
  bearerTokenEnv: envVarName.optional(),
  ...fleetFields,
});

/** One entry under `mcpServers`: stdio when it has `command`, Streamable HTTP when it has `url`. */
export const mcpServerConfigSchema = z.union([stdioServerConfigSchema, httpServerConfigSchema]);

/** A stdio server's configuration. */
export type StdioServerConfig = z.infer<typeof stdioServerConfigSchema>;
/** A Streamable HTTP server's configuration. */
export type HttpServerConfig = z.infer<typeof httpServerConfigSchema>;
/** One server's configuration, as parsed from an `mcpServers` entry. */
export type McpServerConfig = StdioServerConfig | HttpServerConfig;

/** True when the entry names a command to spawn (stdio). */
export function isStdioServerConfig(config: McpServerConfig): config is StdioServerConfig {
  return 'command' in config;
}

/**
 * Parses the `{"mcpServers": {"<name>": {…}}}` document desktop MCP clients and IDEs use, so a user
 * can paste theirs. Unknown fields are ignored; wrong types and values beyond the limits are
 * rejected with a {@link ConfigError} naming the entry and field
 * (`mcpServers.github.url: must be an http(s) URL`).
 *
 * @param json The document's text, or the already-parsed value.
 * @param source What the text came from, for messages. @default 'MCP_SERVERS'
 * @example
 * const servers = parseMcpServers('{"mcpServers":{"fs":{"command":"npx","args":["-y","@modelcontextprotocol/server-filesystem","/data"]}}}');
 * servers.get('fs'); // { command: 'npx', args: [...] }
 */
export function parseMcpServers(
  json: unknown,
  source = 'MCP_SERVERS',
): Map<string, McpServerConfig> {
  let value = json;
  if (typeof json === 'string') {
    if (Buffer.byteLength(json) > MAX_MCP_SERVERS_BYTES) {
      throw new ConfigError(`${source}: longer than ${MAX_MCP_SERVERS_BYTES} bytes.`);
    }
    const parsed = safeParseJson({ text: json, schema: z.unknown(), subject: source });
    if (!parsed.success) {
      throw new ConfigError(`${source}: not valid JSON.`, { cause: parsed.error });
    }
    value = parsed.value;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ConfigError(`${source}: expected an object with "mcpServers".`);
  }
  const servers: unknown = (value as Record<string, unknown>)['mcpServers'];
  if (typeof servers !== 'object' || servers === null || Array.isArray(servers)) {
    throw new ConfigError(`${source}: mcpServers: expected an object of servers by name.`);
  }
  const entries = Object.entries(servers);
  if (entries.length > MAX_MCP_SERVERS) {
    throw new ConfigError(`${source}: mcpServers: at most ${MAX_MCP_SERVERS} servers.`);
  }
  const result = new Map<string, McpServerConfig>();
  for (const [name, entry] of entries) {
    const where = `mcpServers.${name.slice(0, MAX_SERVER_NAME_LENGTH)}`;
    if (!nameSchema.safeParse(name).success) {
      throw new ConfigError(
        `${source}: ${where}: a server name has 1–${MAX_SERVER_NAME_LENGTH} letters, digits, "_", "." or "-".`,
      );
    }
    result.set(name, parseEntry(entry, `${source}: ${where}`));
  }
  return result;
}

function parseEntry(entry: unknown, where: string): McpServerConfig {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
    throw new ConfigError(`${where}: expected an object.`);
  }
  const hasCommand = 'command' in entry;
  const hasUrl = 'url' in entry;
  if (hasCommand === hasUrl) {
    throw new ConfigError(
      `${where}: give either "command" (a stdio server) or "url" (a Streamable HTTP server).`,
    );
  }
  const schema = hasCommand ? stdioServerConfigSchema : httpServerConfigSchema;
  const parsed = schema.safeParse(entry);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue ? formatIssuePath(issue.path) : '';
    throw new ConfigError(
      `${where}${field === '' ? '' : `.${field}`}: ${issue?.message ?? 'invalid'}.`,
      {
        details: {
          issues: parsed.error.issues.map((each) => ({
            path: formatIssuePath(each.path),
            message: each.message,
          })),
        },
      },
    );
  }
  return parsed.data;
}

/** Options for {@link loadMcpServers}: the two variables' values, read by the service's config. */
export interface LoadMcpServersOptions {
  /** `MCP_SERVERS`: the document itself, as JSON. */
  json?: string | undefined;
  /** `MCP_SERVERS_FILE`: a path to the document. Used when `json` is unset or empty. */
  file?: string | undefined;
}

/**
 * Loads the servers from `MCP_SERVERS` (JSON) or `MCP_SERVERS_FILE` (a path), as the service's
 * `src/config.ts` read them; neither set means no servers. Packages never read the environment, so
 * the values are passed in.
 *
 * @example
 * const servers = await loadMcpServers({ json: config.mcpServers, file: config.mcpServersFile });
 */
export async function loadMcpServers({
  json,
  file,
}: LoadMcpServersOptions): Promise<Map<string, McpServerConfig>> {
  if (json !== undefined && json !== '') return parseMcpServers(json, 'MCP_SERVERS');
  if (file === undefined || file === '') return new Map();
  let text: string;
  try {
    const buffer = await readFile(file);
    if (buffer.byteLength > MAX_MCP_SERVERS_BYTES) {
      throw new ConfigError(
        `MCP_SERVERS_FILE (${file}): longer than ${MAX_MCP_SERVERS_BYTES} bytes.`,
      );
    }
    text = buffer.toString('utf8');
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(`MCP_SERVERS_FILE (${file}): cannot be read.`, { cause: error });
  }
  return parseMcpServers(text, `MCP_SERVERS_FILE (${file})`);
}

/**
 * The variables the servers' entries name for bearer tokens (`bearerTokenEnv`), taken from
 * `environment`: what a connection's `env` option needs, and nothing more of the environment.
 *
 * @example
 * createMcpConnection(name, config, { env: bearerTokenEnvironment(servers, process.env) });
 */
export function bearerTokenEnvironment(
  servers: ReadonlyMap<string, McpServerConfig>,
  environment: Readonly<Record<string, string | undefined>>,
): Record<string, string | undefined> {
  const names = [...servers.values()].flatMap((server) =>
    'bearerTokenEnv' in server && server.bearerTokenEnv !== undefined
      ? [server.bearerTokenEnv]
      : [],
  );
  return Object.fromEntries(names.map((name) => [name, environment[name]]));
}
