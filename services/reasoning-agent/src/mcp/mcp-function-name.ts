import { createHash } from 'node:crypto';

/** What every MCP tool's function name starts with; no built-in tool's name does. */
export const MCP_FUNCTION_PREFIX = 'mcp__';

/** OpenAI's limit on a function name's length. */
const MAX_FUNCTION_NAME = 64;

/**
 * The function name the model sees for the tool `tool` of the MCP server `server`:
 * `mcp__<server>__<tool>`, with every character OpenAI does not allow in a function name
 * (anything but letters, digits, `_` and `-`) turned into `_`. The prefix keeps it apart from the
 * built-in tools (`calculate`, `current_time`, `date_diff`). A name longer than 64 characters, or
 * one already `taken` by another tool, is cut and ends in 8 hex digits of the tool's `<server>/<tool>`.
 *
 * @param taken Names already given out in the same listing.
 * @example
 * mcpFunctionName('memory', 'read_graph'); // 'mcp__memory__read_graph'
 * mcpFunctionName('db.main', 'query'); // 'mcp__db_main__query'
 */
export function mcpFunctionName(
  server: string,
  tool: string,
  taken: ReadonlySet<string> = new Set(),
): string {
  const plain = `${MCP_FUNCTION_PREFIX}${server}__${tool}`.replace(/[^A-Za-z0-9_-]/g, '_');
  if (plain.length <= MAX_FUNCTION_NAME && !taken.has(plain)) return plain;
  const hash = createHash('sha256').update(`${server}/${tool}`).digest('hex').slice(0, 8);
  return `${plain.slice(0, MAX_FUNCTION_NAME - hash.length - 1)}_${hash}`;
}
