/**
 * The agent kit: what every fleet agent shares, so that a new agent is a small folder (its card,
 * its execute function, its config spec and `main.ts`). See docs/agents.md, "Writing an agent".
 */
export {
  completed,
  failed,
  handoff,
  HANDOFF_ARTIFACT_NAME,
  plural,
  refused,
  rejected,
  result,
  resultChunk,
  resultChunks,
  resultEnd,
  working,
} from './events';
export type { AgentEvents, ErrorStatusOptions } from './events';
// What a hand-off's data part is, for an executor that puts one in its result or status itself.
export { handoffPart } from '@fleet/a2a';
export type { HandoffRequest } from '@fleet/a2a';
export { errorData, errorDataSchema } from './error-data';
export type { ErrorData } from './error-data';
export { dependencyContext } from './dependency-context';
export type { DependencyContext } from './dependency-context';
export { readNodeInput } from './read-node-input';
export type { NodeInputRead } from './read-node-input';
export { agentModel, describeUpstream } from './agent-model';
export type { AgentModel, AgentModelConfig } from './agent-model';
export { reportUsage } from './report-usage';
export {
  AVAILABILITY_EXTENSION_URI,
  availabilityExtension,
  availabilityReadiness,
  describeAvailability,
  withAvailability,
} from './availability';
export { startAgentService } from './start-agent-service';
export type {
  AgentHandlerParts,
  AgentServiceConfig,
  RunningAgentService,
  StartAgentServiceOptions,
} from './start-agent-service';
export { a2aServerEnv, publicUrlOf } from '@fleet/config';
