import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { agentSummaryOf, toolSkillId, type AgentSummary } from '@fleet/a2a';
import { buildToolsCard } from '@fleet/tools-agent/card';
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
              readOnly: z.boolean(),
              destructive: z.boolean(),
              /** The names of its required arguments. */
              required: z.array(z.string()).max(100),
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
 * server-postgres): the tools agent's own card builder over those listings, summarised with
 * `agentSummaryOf` as the orchestrator does, so a change to the card shows in the evaluation.
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
  const card = buildToolsCard({
    url: 'http://127.0.0.1:1',
    servers: listing.servers.map(({ server, tools }) => ({
      name: server,
      status: 'ready' as const,
      truncated: false,
      tools: tools.map((tool) => ({
        server,
        skillId: toolSkillId(server, tool.name),
        approval: { required: tool.approval === 'required', risk: 'low' as const, reason: '' },
        tool: {
          name: tool.name,
          title: tool.title,
          description: tool.description,
          inputSchema: { type: 'object' as const, required: tool.required },
          outputSchema: undefined,
          annotations: undefined,
          hints: {
            readOnly: tool.readOnly,
            destructive: tool.destructive,
            idempotent: false,
            openWorld: true,
          },
          approval: undefined,
        },
      })),
    })),
  });
  return agentSummaryOf(card);
}
