/** Per-tenant tool permissions: which MCP tools each tenant may use, from the gateway's settings. */
export { ALL_TOOLS_PERMITTED, createToolPermissions } from './tool-permissions';
export type { ToolPermissions } from './tool-permissions';
export {
  inlineToolPermissionsSchema,
  MAX_TOOL_PERMISSION_TENANTS,
  toolPermissionsFileSchema,
  toolPermissionsSchema,
} from './tool-permissions-spec';
export type { ToolPermissionsTable } from './tool-permissions-spec';
