import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { toolSkillId, type AgentSummary } from '@fleet/a2a';
import { parseJson } from '@fleet/errors';
import { CASES_DIR } from './planner-cases';

const toolListingSchema = z.strictObject({
  about: z.string().optional(),
  servers: z
    .array(
      z.strictObject({
        server: z.string().min(1).max(64),
        /** The npm package and version the listing came from. */
        package: z.string().min(1),
        tools: z
          .array(
            z.strictObject({
              name: z.string().min(1).max(128),
              title: z.string().optional(),
              description: z.string().max(4000).optional(),
              approval: z.enum(['required', 'none']),
            }),
          )
          .max(200),
      }),
    )
    .max(20),
});

/** The checked-in tool listings (`packages/eval/cases/mcp-tools.json`). */
export const MCP_TOOLS_FILE = path.join(CASES_DIR, 'mcp-tools.json');

/**
 * The tools agent as the planner sees it, with the tools of the MCP servers in
 * `cases/mcp-tools.json` (real `tools/list` answers of server-filesystem, server-memory and
 * server-postgres): one skill per tool, id `<server>/<tool>`, the tool's description, and the tags
 * `mcp`, `mcp-server:<server>` and `approval:required|none`, as the tools agent's card has them.
 *
 * @example
 * const agents = [...fleetAgents(), toolsAgentSummary()];
 */
export function toolsAgentSummary({ file = MCP_TOOLS_FILE }: { file?: string } = {}): AgentSummary {
  const listing = parseJson({
    text: readFileSync(file, 'utf8'),
    schema: toolListingSchema,
    subject: file,
  });
  return {
    name: 'tools-agent',
    description: `Calls the tools of the fleet's MCP servers (${listing.servers.map((entry) => entry.server).join(', ')}) for the tenant, asking a person first where a tool may change data.`,
    skills: listing.servers.flatMap(({ server, tools }) =>
      tools.map((tool) => ({
        id: toolSkillId(server, tool.name),
        name: tool.title ?? tool.name,
        description: tool.description ?? '',
        tags: ['mcp', `mcp-server:${server}`, `approval:${tool.approval}`],
        examples: [],
      })),
    ),
  };
}
