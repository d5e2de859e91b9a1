/** Test support for agents: boot one in-process, and the parts the orchestrator would send. */
export { bootAgent, nodeParts } from './boot-agent';
export type { BootAgentOptions, BootedAgent, NodePartsOptions } from './boot-agent';
