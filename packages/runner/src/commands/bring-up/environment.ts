import { loadRunnerConfig, type RunnerConfig } from '../../config';
import { rejoinEnvironment } from '../../fleet-environment';
import type { FleetPaths } from '../../paths';
import { devGatewayApiKeys, type FleetSecrets } from '../../secrets';
import { serviceEnvironment } from '../../service-environment';
import type { ServiceDefinition } from '../../services';
import type { FleetState } from '../../state-file';
import type { CommandContext } from '../command';
import type { LiveFleet } from './plan';
import { listNames } from './words';

/**
 * The configuration a run starts services with: the caller's, or the running fleet's updated by
 * the caller's (saying which of the caller's variables the running fleet keeps its own value of,
 * when something is to start).
 */
export function effectiveConfig(
  context: CommandContext,
  { fleet, startsSomething }: { fleet: LiveFleet | undefined; startsSomething: boolean },
): RunnerConfig {
  const { config, io, palette } = context;
  if (fleet === undefined) return config;
  const rejoined = rejoinEnvironment({
    recorded: fleet.state.environment,
    current: config.environment,
    services: context.services,
  });
  const effective = {
    ...loadRunnerConfig({ services: context.services, environment: rejoined.environment }),
    root: config.root,
    cwd: config.cwd,
  };
  if (rejoined.ignored.length > 0 && startsSomething) {
    io.stderr.write(
      palette.yellow(
        `Ignoring ${listNames(rejoined.ignored)}: the running fleet keeps the value it started with ` +
          '(to change it: pnpm fleet down, then pnpm fleet up).\n',
      ),
    );
  }
  return effective;
}

/** Each service's port: a service of the fleet keeps its port; a new one gets the configured port. */
export function fleetPorts(
  config: RunnerConfig,
  fleet: LiveFleet | undefined,
): Record<string, number> {
  const ports: Record<string, number> = { ...config.ports };
  for (const entry of fleet?.state.services ?? []) ports[entry.name] = entry.port;
  return ports;
}

/**
 * The environment every started service gets: the configuration's, with the fleet's Redis,
 * keys, token and data directories, and the URLs of every service of the fleet once this run is
 * done (the discoverable ones are AGENT_URLS).
 */
export function fleetServiceEnvironment(
  context: CommandContext,
  settings: {
    config: RunnerConfig;
    state: FleetState;
    services: readonly ServiceDefinition[];
    ports: Record<string, number>;
    secrets: FleetSecrets;
    paths: FleetPaths;
    /** The directory the tools agent's built-in filesystem server serves. */
    demoFilesDir: string;
  },
): Record<string, string> {
  const { config, state, services, ports, secrets, paths } = settings;
  const members = context.services.filter(
    (service) =>
      services.includes(service) || state.services.some((entry) => entry.name === service.name),
  );
  return serviceEnvironment({
    base: config.environment,
    services: context.services,
    running: members,
    ports,
    fleet: {
      REDIS_URL: state.redis?.url,
      GATEWAY_API_KEYS: devGatewayApiKeys(secrets),
      FLEET_INTERNAL_TOKEN: secrets.internalToken,
      // The RAG agent's embedded PostgreSQL (used without DATABASE_URL) lives with the rest.
      RAG_DATA_DIR: paths.ragDataDir,
      // The tools agent's built-in filesystem server serves a copy of the demo documents, unless
      // the caller configured MCP servers (MCP_SERVERS or MCP_SERVERS_FILE win in the agent).
      TOOLS_AGENT_FILESYSTEM_DIR: settings.demoFilesDir,
    },
  });
}
