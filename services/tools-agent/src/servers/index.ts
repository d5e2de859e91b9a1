/** The MCP servers the tools agent talks to: the built-in default and the live tool catalog. */
export { DEFAULT_FILESYSTEM_SERVER, defaultFilesystemServer } from './default-filesystem-server';
export { createToolCatalog } from './tool-catalog';
export type {
  CatalogTool,
  CreateToolCatalogOptions,
  ServerState,
  ToolCatalog,
} from './tool-catalog';
