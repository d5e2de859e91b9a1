/** The orchestrator's own Prometheus metrics: agents' circuit breakers and pending approvals. */
export { registerOrchestratorMetrics } from './register-orchestrator-metrics';
export type { RegisterOrchestratorMetricsOptions } from './register-orchestrator-metrics';
