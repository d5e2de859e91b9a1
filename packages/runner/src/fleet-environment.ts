import type { ServiceDefinition } from './services';

/**
 * Variables every service of one fleet must agree on: where Redis and PostgreSQL are, the keys
 * and token, and where each service listens. A service started into a running fleet gets them
 * as the fleet started, whatever the caller sets now.
 */
export function fleetWideVariables(services: readonly ServiceDefinition[]): string[] {
  return [
    'REDIS_URL',
    'REDIS_CLUSTER_NODES',
    'REDIS_SENTINELS',
    'REDIS_SENTINEL_NAME',
    'REDIS_CLAIM_REPLICAS',
    'REDIS_CLAIM_WAIT_MS',
    'GATEWAY_API_KEYS',
    'FLEET_INTERNAL_TOKEN',
    'DATABASE_URL',
    'RAG_DATA_DIR',
    'AGENT_URLS',
    ...services.flatMap((service) => [service.portVariable, service.urlVariable]),
  ];
}

/** Options for {@link rejoinEnvironment}. */
export interface RejoinEnvironmentOptions {
  /** The caller's environment when the fleet started (`undefined`: an older state file). */
  recorded: Readonly<Record<string, string>> | undefined;
  /** The caller's environment now. */
  current: Readonly<Record<string, string>>;
  services: readonly ServiceDefinition[];
}

/** The result of {@link rejoinEnvironment}. */
export interface RejoinedEnvironment {
  environment: Record<string, string>;
  /** Fleet-wide variables set now to another value than the fleet started with: not used. */
  ignored: string[];
}

/**
 * The caller's environment for a service started into a running fleet: what the fleet started
 * with, updated by what is set now (a new shell without `OPENAI_API_KEY` still restarts the
 * planner online; `LOG_LEVEL=debug pnpm fleet restart planner` works), except the
 * {@link fleetWideVariables}, which stay as the fleet started.
 *
 * @example
 * rejoinEnvironment({ recorded: state.environment, current: config.environment, services });
 */
export function rejoinEnvironment({
  recorded,
  current,
  services,
}: RejoinEnvironmentOptions): RejoinedEnvironment {
  if (recorded === undefined) return { environment: { ...current }, ignored: [] };
  const fleetWide = new Set(fleetWideVariables(services));
  const environment: Record<string, string> = { ...recorded };
  const ignored: string[] = [];
  for (const [name, value] of Object.entries(current)) {
    if (!fleetWide.has(name)) {
      environment[name] = value;
    } else if (value.trim() !== '' && value !== (recorded[name] ?? '')) {
      ignored.push(name);
    }
  }
  return { environment, ignored };
}
