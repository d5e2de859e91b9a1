/** Agent discovery: the healthy agents of AGENT_URLS, their cards cached in Redis and in memory. */
export { createAgentDirectory, summaryOf } from './agent-directory';
export type {
  AgentDirectory,
  AgentDirectoryOptions,
  AvailableAgent,
  DiscoveryLogger,
} from './agent-directory';
