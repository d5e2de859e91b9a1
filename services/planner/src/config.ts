import {
  a2aServerEnv,
  llmEnv,
  loadConfig,
  redisEnv,
  runtimeEnv,
  telemetryEnv,
  type ConfigOf,
  type Environment,
} from '@fleet/config';

/** Every variable the planner reads (docs/architecture.md §11). */
export const configSpec = {
  ...a2aServerEnv({ prefix: 'PLANNER', label: 'the planner', defaultPort: 8082 }),
  ...llmEnv,
  ...redisEnv,
  ...telemetryEnv,
  ...runtimeEnv,
} as const;

/** The planner's typed configuration. */
export type PlannerConfig = ConfigOf<typeof configSpec>;

/** Loads the planner's configuration; the only place it reads the environment (CONTRIBUTING.md convention 15). */
export function loadPlannerConfig(environment: Environment = process.env): PlannerConfig {
  return loadConfig(configSpec, environment);
}
