/** The A2A server core, transport-agnostic: the JSON-RPC handler, agent types, cards and task stores. */
export { createA2AHandler } from './create-a2a-handler';
export { interceptRequests } from './intercept-requests';
export type {
  A2AHandler,
  A2AHandlerResult,
  A2AJsonResult,
  A2ALogger,
  A2ARequestContext,
  A2AStreamResult,
  CreateA2AHandlerOptions,
  LostTurnPolicy,
  TurnObserver,
  TurnOutcome,
} from './create-a2a-handler';
export type {
  AgentArtifactEvent,
  AgentContext,
  AgentEvent,
  AgentExecute,
  AgentStatusEvent,
} from './agent';
export { A2A_ENDPOINT_PATH, buildAgentCard, FLEET_SECURITY_SCHEME } from './build-agent-card';
export type { BuildAgentCardOptions } from './build-agent-card';
export type {
  SaveTaskOptions,
  TaskBusMessage,
  TaskPage,
  TaskQuery,
  TaskRecord,
  TaskStore,
  Unsubscribe,
} from './task-store';
export { endLostTurn } from './end-lost-turn';
export type { EndLostTurnOptions } from './end-lost-turn';
export { InMemoryTaskStore } from './in-memory-task-store';
export { FLEET_REDIS_OPTIONS, fleetReconnectDelay } from './redis-options';
export { createFleetRedis, fleetRedisMode } from './create-fleet-redis';
export type {
  FleetRedis,
  FleetRedisAddress,
  FleetRedisConfig,
  FleetRedisExtraOptions,
  FleetRedisMode,
} from './create-fleet-redis';
export { RedisTaskStore, redisTaskKeys } from './redis-task-store';
export type { RedisConnection, RedisTaskKeys, RedisTaskStoreOptions } from './redis-task-store';
export { migrateRedisTaskKeys } from './migrate-redis-task-keys';
export { redisKeySlot } from './redis-key-slot';
export { claimReplicated, type ClaimReplication } from './replicated-claim';
export type { TaskKeyMigration } from './migrate-redis-task-keys';
