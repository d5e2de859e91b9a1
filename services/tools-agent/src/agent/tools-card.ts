import type { AgentAvailability, AgentCard, AgentSkill } from '@fleet/a2a';
import { buildAgentCard } from '@fleet/a2a/server';
import { withAvailability } from '@fleet/agent-kit';
import type { CatalogTool, ServerState } from '../servers';

/** The tools agent's version, as its Agent Card states it. */
export const TOOLS_AGENT_VERSION = '0.1.0';

/** Longest skill name and description taken from a tool (servers write what they like). */
export const SKILL_TEXT_LIMITS = { name: 200, description: 1000 } as const;

/** Options for {@link buildToolsCard}. */
export interface BuildToolsCardOptions {
  /** The service's base URL, e.g. `http://127.0.0.1:8088`. */
  url: string;
  /** The servers and their tools, as the catalog has them now. */
  servers: readonly ServerState[];
  /** Declares the fleet's bearer scheme; set when `/a2a` needs FLEET_INTERNAL_TOKEN. @default true */
  internalToken?: boolean;
  /** Whether the agent can work now (`toolsAvailability`), stated in the availability extension. */
  availability?: AgentAvailability | undefined;
}

function bounded(text: string, limit: number): string {
  const clean = text.replace(/\s+/g, ' ').trim();
  return clean.length > limit ? `${clean.slice(0, limit - 1)}…` : clean;
}

/** The names of the tool's required arguments, from its input schema. */
export function requiredArguments(tool: CatalogTool['tool']): string[] {
  const required = (tool.inputSchema as { required?: unknown }).required;
  return Array.isArray(required)
    ? required.filter((name): name is string => typeof name === 'string')
    : [];
}

/**
 * The skill of one tool: id `<server>/<tool>`, name its title (or its name), description the
 * tool's own (bounded), and tags `mcp`, `mcp-server:<server>`, `approval:required` or
 * `approval:none` (`toolApproval`), `read-only` when its hints say so, `destructive` when it is
 * destructive and not read-only.
 *
 * @example
 * toolSkill(catalog.find('memory', 'read_graph')!);
 */
export function toolSkill(entry: CatalogTool): AgentSkill {
  const { server, tool, skillId, approval } = entry;
  const tags = [
    'mcp',
    `mcp-server:${server}`,
    approval.required ? 'approval:required' : 'approval:none',
    ...(tool.hints.readOnly ? ['read-only'] : []),
    ...(tool.hints.destructive && !tool.hints.readOnly ? ['destructive'] : []),
  ];
  const example = Object.fromEntries(requiredArguments(tool).map((name) => [name, '…']));
  return {
    id: skillId,
    name: bounded(tool.title ?? tool.name, SKILL_TEXT_LIMITS.name),
    description: bounded(
      tool.description ?? `The tool "${tool.name}" of the MCP server "${server}".`,
      SKILL_TEXT_LIMITS.description,
    ),
    tags,
    examples: [`${skillId} ${JSON.stringify(example)}`],
    inputModes: ['text/plain', 'application/json'],
    outputModes: [
      'text/plain',
      'application/json',
      'image/*',
      'audio/*',
      'application/octet-stream',
    ],
  };
}

/**
 * The tools agent's Agent Card: name `tools-agent`, streaming, one skill per allowed tool of every
 * started server ({@link toolSkill}), the internal-token security scheme and, when given, the
 * availability extension. Rebuilt whenever a server changes its tools.
 *
 * @example
 * const card = buildToolsCard({ url: 'http://127.0.0.1:8088', servers: catalog.servers() });
 */
export function buildToolsCard({
  url,
  servers,
  internalToken = true,
  availability,
}: BuildToolsCardOptions): AgentCard {
  const names = servers.map((server) => server.name);
  const card = buildAgentCard({
    name: 'tools-agent',
    description: `Calls the tools of MCP servers${names.length === 0 ? '' : ` (${names.join(', ')})`}: each skill is one tool, id "<server>/<tool>". Name the tool (the skill, or "<server>/<tool>" in the text) and give its arguments as a JSON object, or describe the task and the model picks the tool and arguments. Tools tagged approval:required wait for a person's approval (TASK_STATE_AUTH_REQUIRED, the exact arguments as the preview; a denial calls nothing); read-only tools of trusted servers run at once. The result artifact holds the tool's text, its structured output as a data part and its images, audio and resources as file parts.`,
    version: TOOLS_AGENT_VERSION,
    url,
    streaming: true,
    internalToken,
    skills: servers.flatMap((server) => server.tools.map(toolSkill)),
  });
  return availability === undefined ? card : withAvailability(card, availability);
}
