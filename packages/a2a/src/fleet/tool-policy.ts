import { z } from 'zod';

/** Most patterns in one list of a tool policy. */
export const MAX_TOOL_POLICY_PATTERNS = 200;

const toolPatternSchema = z
  .string()
  .min(1)
  .max(300)
  .regex(
    /^[A-Za-z0-9_.*-]+\/[A-Za-z0-9_.*:-]+$/,
    'expected "<server>/<tool>", where either part may use * as a wildcard',
  );

/**
 * Which MCP tools a tenant may use. A tool is named `<server>/<tool>` (its skill id on the tools
 * agent's card); a pattern may use `*` for any run of characters (`filesystem/*`, `memory/delete_*`).
 * `deny` wins over `allow`; without `allow` every tool not denied is permitted.
 */
export const toolPolicySchema = z.strictObject({
  allow: z.array(toolPatternSchema).max(MAX_TOOL_POLICY_PATTERNS).optional(),
  deny: z.array(toolPatternSchema).max(MAX_TOOL_POLICY_PATTERNS).optional(),
});
export type ToolPolicy = z.infer<typeof toolPolicySchema>;

/** The skill id of an MCP tool: `<server>/<tool>` (neither part may contain "/"). */
export function toolSkillId(server: string, tool: string): string {
  return `${server}/${tool}`;
}

/** The server and tool of a skill id made by {@link toolSkillId}; undefined for other ids. */
export function parseToolSkillId(skillId: string): { server: string; tool: string } | undefined {
  const slash = skillId.indexOf('/');
  if (slash <= 0 || slash === skillId.length - 1 || skillId.indexOf('/', slash + 1) !== -1) {
    return undefined;
  }
  return { server: skillId.slice(0, slash), tool: skillId.slice(slash + 1) };
}

function matches(pattern: string, name: string): boolean {
  const source = pattern
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\-]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${source}$`).test(name);
}

/**
 * Whether `policy` lets its tenant use the tool `<server>/<tool>`. No policy permits everything.
 *
 * @example
 * isToolPermitted({ deny: ['memory/delete_*'] }, 'memory', 'delete_entities'); // false
 */
export function isToolPermitted(
  policy: ToolPolicy | undefined,
  server: string,
  tool: string,
): boolean {
  if (policy === undefined) return true;
  const name = toolSkillId(server, tool);
  if (policy.deny?.some((pattern) => matches(pattern, name)) === true) return false;
  if (policy.allow === undefined) return true;
  return policy.allow.some((pattern) => matches(pattern, name));
}
