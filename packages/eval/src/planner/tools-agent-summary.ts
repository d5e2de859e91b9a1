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
 * server-postgres), written as the tools agent's card writes them (its card builder is not an
 * entry of its package): its description, and one skill per tool with id `<server>/<tool>`, the
 * tool's title and description, the tags `mcp`, `mcp-server:<server>`, `approval:required|none`,
 * `read-only` or `destructive`, and the example `<server>/<tool> {"<required>":"…"}`.
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
  const names = listing.servers.map((entry) => entry.server).join(', ');
  return {
    name: 'tools-agent',
    description: `Calls the tools of MCP servers (${names}): each skill is one tool, id "<server>/<tool>". Name the tool (the skill, or "<server>/<tool>" in the text) and give its arguments as a JSON object, or describe the task and the model picks the tool and arguments. Tools tagged approval:required wait for a person's approval (TASK_STATE_AUTH_REQUIRED, the exact arguments as the preview; a denial calls nothing); read-only tools of trusted servers run at once. The result artifact holds the tool's text, its structured output as a data part and its images, audio and resources as file parts.`,
    skills: listing.servers.flatMap(({ server, tools }) =>
      tools.map((tool) => {
        const id = toolSkillId(server, tool.name);
        const example = Object.fromEntries(tool.required.map((name) => [name, '…']));
        return {
          id,
          name: tool.title ?? tool.name,
          description: tool.description ?? `The tool "${tool.name}" of the MCP server "${server}".`,
          tags: [
            'mcp',
            `mcp-server:${server}`,
            `approval:${tool.approval}`,
            ...(tool.readOnly ? ['read-only'] : []),
            ...(tool.destructive && !tool.readOnly ? ['destructive'] : []),
          ],
          examples: [`${id} ${JSON.stringify(example)}`],
        };
      }),
    ),
  };
}
