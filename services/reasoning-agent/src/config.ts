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
import { bearerTokenEnvironment, type McpServerConfig } from '@fleet/mcp';
import { isTimeZone } from './tools/current-time';

/** Every variable the reasoning agent reads (docs/architecture.md §1, §8, §10, §11). */
export const configSpec = {
  ...a2aServerEnv({
    prefix: 'REASONING_AGENT',
    label: 'the reasoning agent',
    defaultPort: 8087,
    deprecatedPublicUrlNames: ['REASONING_AGENT_URL'],
  }),
  maxIterations: envVar({
    name: 'REASONING_MAX_ITERATIONS',
    schema: positiveIntSchema.max(50, 'expected at most 50').default(6),
    description:
      'Model calls one task may make (each may call tools). The last one must answer; when it cannot, the agent answers with what it has found and says the budget ran out.',
  }),
  maxTokens: envVar({
    name: 'REASONING_MAX_TOKENS',
    schema: positiveIntSchema.default(16_000),
    description:
      'Tokens (prompt + completion, as the upstream reports them) one task may spend across all its model calls. Checked before each call: once spent, the agent answers with what it has found and says the budget ran out.',
  }),
  maxAttachments: envVar({
    name: 'REASONING_MAX_ATTACHMENTS',
    schema: positiveIntSchema.max(32, 'expected at most 32').default(8),
    description:
      'Files of one message the reasoning agent reads (images shown to the model, text files as text); the ones past it are only named to the model.',
  }),
  maxAttachmentBytes: envVar({
    name: 'REASONING_MAX_ATTACHMENT_BYTES',
    schema: byteSizeSchema
      .pipe(
        z
          .number()
          .min(1, 'expected at least 1 byte')
          .max(64 * 1024 * 1024, 'expected at most 64mb'),
      )
      .prefault('8mb'),
    description:
      "Bytes of one message's files in all that the reasoning agent reads (bytes, or 512kb, 8mb…); a file that would pass it is only named to the model. The A2A body limit follows (base64 plus 1 MiB).",
  }),
  defaultTimeZone: envVar({
    name: 'REASONING_TIME_ZONE',
    schema: z
      .string()
      .refine(isTimeZone, { error: 'expected an IANA time zone such as UTC or Europe/Berlin' })
      .default('UTC'),
    description:
      'IANA time zone the current_time tool uses when the model names none (e.g. Europe/Berlin).',
  }),
  mcpServers: envVar({
    name: 'REASONING_MCP_SERVERS',
    schema: z
      .string()
      .max(256 * 1024, 'expected at most 256 KiB')
      .optional(),
    description:
      'MCP servers whose tools the reasoning loop may call, as the {"mcpServers": {"NAME": {…}}} document desktop MCP clients use (stdio "command"/"args" or Streamable HTTP "url"; plus the fleet\'s trustAnnotations, allowTools, denyTools, approval, timeoutMs). Only tools that need no approval are offered (read-only by trusted annotations, or approval "never"), named mcp__SERVER__TOOL. Unset: no MCP tools. Wins over REASONING_MCP_SERVERS_FILE.',
  }),
  mcpServersFile: envVar({
    name: 'REASONING_MCP_SERVERS_FILE',
    schema: z.string().optional(),
    description:
      'A path to the REASONING_MCP_SERVERS document, read at start when REASONING_MCP_SERVERS is unset.',
  }),
  mcpMaxResultChars: envVar({
    name: 'REASONING_MCP_MAX_RESULT_CHARS',
    schema: positiveIntSchema.max(200_000, 'expected at most 200000').default(20_000),
    description:
      'Longest MCP tool result, in characters, the model reads back; a longer one is cut with a note saying how much was left out. (A result over 1 MiB is refused outright and the model is told so.)',
  }),
  ...llmEnv,
  ...redisEnv,
  ...telemetryEnv,
  ...runtimeEnv,
} as const;

/** The reasoning agent's typed configuration. */
export type ReasoningAgentConfig = ConfigOf<typeof configSpec>;

/**
 * Loads the reasoning agent's configuration; the only place it reads the environment (CONTRIBUTING.md
 * convention 15).
 *
 * @example
 * const config = loadReasoningAgentConfig({ FLEET_INTERNAL_TOKEN: 'x'.repeat(16) });
 */
export function loadReasoningAgentConfig(
  environment: Environment = process.env,
  options: LoadConfigOptions = {},
): ReasoningAgentConfig {
  return loadConfig(configSpec, environment, options);
}

/**
 * The bearer tokens the MCP servers' entries name (`bearerTokenEnv`), read from the environment
 * here so that the service reads it in one module (CONTRIBUTING.md convention 15); only the named
 * variables are passed on (`bearerTokenEnvironment`).
 *
 * @example
 * createMcpToolbox({ servers, connection: { env: mcpTokenEnvironment(servers) } });
 */
export function mcpTokenEnvironment(
  servers: ReadonlyMap<string, McpServerConfig>,
  environment: Environment = process.env,
): Record<string, string | undefined> {
  return bearerTokenEnvironment(servers, environment);
}
