/** Agent discovery: the healthy agents of AGENT_URLS, their cards cached in Redis and in memory. */
export { createAgentDirectory, summaryOf } from './agent-directory';
export type {
  AgentDirectory,
  AgentDirectoryOptions,
  AvailableAgent,
  DiscoveryLogger,
} from './agent-directory';
export { guardAvailability } from './guard-availability';
export type { GuardAvailabilityOptions } from './guard-availability';
export {
  AVAILABILITY_EXTENSION_URI,
  readAvailability,
  unavailableReason,
} from './read-availability';
export type { AvailabilityRead } from './read-availability';
export { AGENTS_PATH, agentsRouter } from './agents-router';
export type { AgentsRouterOptions } from './agents-router';
