import type { McpTool } from './create-mcp-connection';

/** Whether a call of a tool needs a person's approval first, how risky it is, and why. */
export interface ToolApproval {
  required: boolean;
  risk: 'low' | 'medium' | 'high';
  /** One sentence for people: why the call asks (or does not). */
  reason: string;
}

/**
 * The approval a call of `tool` needs, from what the tool says about itself and the operator's
 * rules: an `approval` override in the server's entry decides; otherwise a call runs without
 * asking only when the tool is read-only by hints the entry trusts (`trustAnnotations: true`).
 * An absent annotation counts as destructive, as the MCP specification says, and an untrusted
 * server's hints count as absent. Risk: read-only low, additive (not destructive) medium,
 * destructive high.
 *
 * @example
 * const { required, risk } = toolApproval(tool);
 */
export function toolApproval(tool: Pick<McpTool, 'hints' | 'approval'>): ToolApproval {
  const { hints } = tool;
  const risk = hints.readOnly ? 'low' : hints.destructive ? 'high' : 'medium';
  if (tool.approval === 'always') {
    return { required: true, risk, reason: "The operator's rule for this tool asks every time." };
  }
  if (tool.approval === 'never') {
    return {
      required: false,
      risk,
      reason: "The operator's rule for this tool runs it without asking.",
    };
  }
  if (hints.readOnly) {
    return { required: false, risk, reason: 'The tool is read-only and its server is trusted.' };
  }
  return {
    required: true,
    risk,
    reason: hints.destructive
      ? 'The tool may change or delete data (or its server is not trusted to say otherwise).'
      : 'The tool may change data.',
  };
}
