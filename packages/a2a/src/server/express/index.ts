/** The express edge of an A2A agent: card routes, the JSON-RPC endpoint, and the SSE writer. */
export { a2aRouter, AGENT_CARD_PATHS } from './a2a-router';
export type { A2ARouterOptions } from './a2a-router';
export { sendSse } from './send-sse';
export type { SendSseOptions } from './send-sse';
export { createAgentApp, INTERNAL_ROUTES_PATH } from './create-agent-app';
export type { AgentAppDependencies } from './create-agent-app';
export { serveAgent } from './serve-agent';
export type { ServeAgentOptions } from './serve-agent';
export { observeTaskMetrics, taskStateLabel } from './observe-task-metrics';
export type { ObserveTaskMetricsOptions } from './observe-task-metrics';
