import { logFileFor } from '../../paths';
import { resolveRedis } from '../../redis-setup';
import type { RunnerConfig } from '../../config';
import type { ServiceDefinition } from '../../services';
import type { FleetState } from '../../state-file';
import type { CommandContext } from '../command';

/**
 * The fleet's state to record services in: the running fleet's, or a new one for a fresh start
 * (with the environment the fleet starts with).
 */
export function initialState(config: RunnerConfig, existing: FleetState | undefined): FleetState {
  return (
    existing ?? {
      version: 1,
      startedAt: new Date().toISOString(),
      services: [],
      environment: config.environment,
    }
  );
}

/**
 * Gives the state a Redis when a service to start needs one and the fleet has none yet:
 * REDIS_URL, a local Redis, or a redis-server the runner starts (said on stderr).
 */
export async function ensureRedis(
  context: CommandContext,
  {
    config,
    state,
    services,
  }: { config: RunnerConfig; state: FleetState; services: readonly ServiceDefinition[] },
): Promise<void> {
  const { io, palette, paths } = context;
  const needsRedis = services.some((service) => service.needs.includes('redis'));
  if (!needsRedis || state.redis !== undefined) return;
  state.redis = await resolveRedis({
    redisUrl: config.redisUrl,
    localRedisUrl: config.localRedisUrl,
    redisServerBinary: config.redisServerBinary,
    dataDir: paths.redisDir,
    logFile: logFileFor(paths, 'redis'),
    env: config.environment,
  });
  if (state.redis.source === 'started') {
    io.stderr.write(
      palette.dim(
        `Started redis-server on ${state.redis.url} (no persistence; stopped by fleet down).\n`,
      ),
    );
  }
}
