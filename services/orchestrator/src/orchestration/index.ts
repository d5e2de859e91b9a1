/** The orchestrator as an A2A agent: one run per task, approvals, resume, progress as status updates, the answer as its result. */
export { createOrchestratorAgent } from './orchestrator-agent';
export type { OrchestratorAgent } from './orchestrator-agent';
export type { OrchestratorAgentOptions } from './orchestrator-agent-options';
export type { RunLogger } from './run-context';
export { describeProgress } from './describe-progress';
export { EventQueue } from './event-queue';
export { createOrchestratorHandler } from './create-orchestrator-handler';
export type { CreateOrchestratorHandlerOptions } from './create-orchestrator-handler';
export { resumeSessions } from './resume-sessions';
export type { ResumeSessionsOptions } from './resume-sessions';
