import { isToolPermitted, type ToolPolicy } from '@fleet/a2a';
import { NotFoundError, PermissionDeniedError, ValidationError } from '@fleet/errors';
import type { CatalogTool } from '../servers';
import { callName, type ToolCall } from './tool-call';
import type { ToolsAgentSettings } from './tools-agent-settings';

/** The refusal of a tool the tool policy does not permit; nothing is sent to its server. */
export function policyRefusal(name: string): PermissionDeniedError {
  return new PermissionDeniedError(
    `The tool policy of this request does not permit the tool ${name}, so nothing was sent to its MCP server.`,
    { details: { tool: name } },
  );
}

/**
 * Checks a call before anything is sent: its tool is offered now, the tool policy permits it, and
 * its arguments fit the tool's `inputSchema`. Returns the tool.
 *
 * @throws PermissionDeniedError (policy), NotFoundError (no such tool), ValidationError naming the
 *   bad fields (`details.fields`)
 * @example
 * const tool = checkCall(settings, call, task.toolPolicy);
 */
export function checkCall(
  settings: Pick<ToolsAgentSettings, 'catalog' | 'checker'>,
  call: ToolCall,
  policy: ToolPolicy | undefined,
): CatalogTool {
  const name = callName(call);
  if (!isToolPermitted(policy, call.server, call.tool)) throw policyRefusal(name);
  const entry = settings.catalog.find(call.server, call.tool);
  if (entry === undefined) {
    throw new NotFoundError(
      `No started MCP server offers the tool ${name} now, so it was not called.`,
      { details: { tool: name } },
    );
  }
  const checked = settings.checker.check(entry.tool.inputSchema, call.arguments);
  if (!checked.valid) {
    const fields = checked.fields.filter((field) => field !== '');
    throw new ValidationError(
      `The arguments for ${name} do not fit its input schema${fields.length > 0 ? ` (${fields.join(', ')})` : ''}: ${checked.message}. Nothing was sent to the MCP server.`,
      { details: { tool: name, fields, reason: checked.reason }, param: fields[0] ?? '' },
    );
  }
  return entry;
}
