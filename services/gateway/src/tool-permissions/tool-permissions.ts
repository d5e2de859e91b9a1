import type { ToolPolicy } from '@fleet/a2a';
import type { ToolPermissionsTable } from './tool-permissions-spec';

/** Which MCP tools each tenant may use, as the gateway tells the orchestrator and the agents. */
export interface ToolPermissions {
  /** The tenant's tool policy: its own entry, else the default; undefined: every tool. */
  policyFor(tenant: string): ToolPolicy | undefined;
}

/** Every tenant may use every tool. */
export const ALL_TOOLS_PERMITTED: ToolPermissions = { policyFor: () => undefined };

/**
 * The tool permissions of `GATEWAY_TOOL_PERMISSIONS_FILE` and `GATEWAY_TOOL_PERMISSIONS`
 * together: a tenant named inline takes its inline policy (the file's entry for it is ignored),
 * the inline `default` replaces the file's.
 *
 * @example
 * const permissions = createToolPermissions({ file: config.toolPermissionsFile, inline: config.toolPermissions });
 * permissions.policyFor('acme'); // { deny: ['memory/delete_*'] }
 */
export function createToolPermissions({
  file,
  inline,
}: {
  file?: ToolPermissionsTable | undefined;
  inline?: ToolPermissionsTable | undefined;
}): ToolPermissions {
  const tenants = new Map<string, ToolPolicy>(
    Object.entries({ ...file?.tenants, ...inline?.tenants }),
  );
  const fallback = inline?.default ?? file?.default;
  if (tenants.size === 0 && fallback === undefined) return ALL_TOOLS_PERMITTED;
  return { policyFor: (tenant) => tenants.get(tenant) ?? fallback };
}
