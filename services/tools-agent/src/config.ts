import { z } from 'zod';
import {
  a2aServerEnv,
  byteSizeSchema,
  envVar,
  llmEnv,
  loadConfig,
  positiveIntSchema,
  redisEnv,
  runtimeEnv,
  telemetryEnv,
  type ConfigOf,
  type Environment,
  type LoadConfigOptions,
} from '@fleet/config';
import { FleetError } from '@fleet/errors';
import {
  bearerTokenEnvironment,
  loadMcpServers,
  parseMcpServers,
  type McpServerConfig,
} from '@fleet/mcp';
import { DEFAULT_FILESYSTEM_SERVER, defaultFilesystemServer } from './servers';

/** Every variable the tools agent reads (docs/architecture.md §1, §8, §10, §11). */
export const configSpec = {
  ...a2aServerEnv({ prefix: 'TOOLS_AGENT', label: 'the tools agent', defaultPort: 8088 }),
  mcpServers: envVar({
    name: 'MCP_SERVERS',
    schema: z
      .string()
      .optional()
      .superRefine((value, context) => {
        if (value === undefined) return;
        try {
          parseMcpServers(value, 'MCP_SERVERS');
        } catch (error) {
          context.addIssue({
            code: 'custom',
            message: FleetError.isInstance(error) ? error.message : String(error),
          });
        }
      }),
    description:
      'The MCP servers whose tools the tools agent offers, as the `{"mcpServers": {"<name>": {…}}}` JSON desktop MCP clients use: `command`/`args`/`env`/`cwd` for a stdio server (started in its own process group), `url`/`headers`/`bearerTokenEnv` for Streamable HTTP, plus the fleet fields `trustAnnotations` (believe the tools\' readOnly/destructive/idempotent hints; default false: every call of an untrusted server asks a person first), `allowTools`, `denyTools`, `approval` (`{"<tool>": "always" | "never"}`) and `timeoutMs`. Every allowed tool becomes a skill `<server>/<tool>`. Wins over MCP_SERVERS_FILE.',
    defaultText: 'none (see TOOLS_AGENT_FILESYSTEM_DIR)',
    example:
      '{"mcpServers":{"memory":{"command":"node","args":["/opt/mcp/server-memory/dist/index.js"],"trustAnnotations":true}}}',
  }),
  mcpServersFile: envVar({
    name: 'MCP_SERVERS_FILE',
    schema: z.string().min(1).optional(),
    description:
      'A file holding the MCP_SERVERS document (the same JSON), read at start when MCP_SERVERS is unset.',
    defaultText: 'none',
    example: '/etc/a2a-fleet/mcp-servers.json',
  }),
  filesystemDir: envVar({
    name: 'TOOLS_AGENT_FILESYSTEM_DIR',
    schema: z.string().min(1).optional(),
    description:
      'When neither MCP_SERVERS nor MCP_SERVERS_FILE is set: the directory the built-in @modelcontextprotocol/server-filesystem serves as the server "filesystem" (started with this Node, trusted annotations: reading runs at once, writing asks a person first). `pnpm fleet up` sets it to `.fleet/files`, a copy of the demo documents. Unset as well: no servers, and the agent says it is unconfigured.',
    defaultText: 'none',
    example: '/srv/documents',
  }),
  callTimeoutMs: envVar({
    name: 'TOOLS_AGENT_CALL_TIMEOUT_MS',
    schema: positiveIntSchema.max(3_600_000, 'expected at most 3600000').default(60_000),
    description:
      "Time-out of one tool call in milliseconds when the server's entry sets no `timeoutMs`; the server is then sent a cancellation and the step fails as timed out.",
  }),
  maxResultBytes: envVar({
    name: 'TOOLS_AGENT_MAX_RESULT_SIZE',
    schema: byteSizeSchema.prefault('4mb'),
    description:
      'Largest result of one tool call (its content and structured content; bytes, or 512kb, 4mb…); a bigger one fails the step and nothing of it is kept.',
  }),
  maxToolsPerServer: envVar({
    name: 'TOOLS_AGENT_MAX_TOOLS',
    schema: positiveIntSchema.max(1000, 'expected at most 1000').default(256),
    description:
      'Tools taken from one server (after allowTools/denyTools); the rest are left off the card and logged.',
  }),
  maxRounds: envVar({
    name: 'TOOLS_AGENT_MAX_ROUNDS',
    schema: positiveIntSchema.max(10, 'expected at most 10').default(4),
    description:
      'With an LLM: model calls one step may make to choose tools and their arguments (each may ask for several tool calls).',
  }),
  approvalTtlSeconds: envVar({
    name: 'TOOLS_AGENT_APPROVAL_TTL_SECONDS',
    schema: positiveIntSchema.default(900),
    description:
      "How long a request to call a tool stays valid (the approval's expiresAt); a later approval calls nothing.",
  }),
  ...llmEnv,
  ...redisEnv,
  ...telemetryEnv,
  ...runtimeEnv,
} as const;

/** The tools agent's typed configuration. */
export type ToolsAgentConfig = ConfigOf<typeof configSpec>;

/**
 * Loads the tools agent's configuration; the only place it reads the environment (CONTRIBUTING.md
 * convention 15).
 *
 * @example
 * const config = loadToolsAgentConfig({ FLEET_INTERNAL_TOKEN: 'x'.repeat(16) });
 */
export function loadToolsAgentConfig(
  environment: Environment = process.env,
  options: LoadConfigOptions = {},
): ToolsAgentConfig {
  return loadConfig(configSpec, environment, options);
}

/** The servers {@link loadToolServers} found, and where their bearer tokens are read. */
export interface ToolServers {
  servers: Map<string, McpServerConfig>;
  /** The bearer tokens the entries name (`bearerTokenEnvironment`), nothing else. */
  env: Record<string, string | undefined>;
  /** Where the servers came from, for the start-up log. */
  source: 'MCP_SERVERS' | 'MCP_SERVERS_FILE' | 'TOOLS_AGENT_FILESYSTEM_DIR' | 'none';
}

/**
 * The MCP servers to connect to: MCP_SERVERS, else MCP_SERVERS_FILE (read now), else the built-in
 * filesystem server over TOOLS_AGENT_FILESYSTEM_DIR, else none.
 *
 * @throws ConfigError naming the variable and the entry at fault
 * @example
 * const { servers, env } = await loadToolServers(config);
 */
export async function loadToolServers(
  config: Pick<ToolsAgentConfig, 'mcpServers' | 'mcpServersFile' | 'filesystemDir'>,
  environment: Environment = process.env,
): Promise<ToolServers> {
  if (config.mcpServers !== undefined || config.mcpServersFile !== undefined) {
    const servers = await loadMcpServers({ json: config.mcpServers, file: config.mcpServersFile });
    return {
      servers,
      env: bearerTokenEnvironment(servers, environment),
      source: config.mcpServers !== undefined ? 'MCP_SERVERS' : 'MCP_SERVERS_FILE',
    };
  }
  if (config.filesystemDir !== undefined) {
    return {
      servers: new Map([
        [DEFAULT_FILESYSTEM_SERVER, defaultFilesystemServer(config.filesystemDir)],
      ]),
      env: {},
      source: 'TOOLS_AGENT_FILESYSTEM_DIR',
    };
  }
  return { servers: new Map(), env: {}, source: 'none' };
}
