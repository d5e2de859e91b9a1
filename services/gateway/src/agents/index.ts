/** `GET /v1/agents`: the agents and skills the orchestrator sees, as the caller's tenant may use them. */
export { agentsRouter } from './agents-router';
export type { AgentsRouterOptions } from './agents-router';
export { createAgentsClient } from './agents-client';
export type { AgentsClient, CreateAgentsClientOptions } from './agents-client';
export { agentViews } from './agent-views';
export type { AgentView, SkillView } from './agent-views';
