import { Cluster, Redis, type ClusterNode, type ClusterOptions, type RedisOptions } from 'ioredis';
import { ConfigError } from '@fleet/errors';
import { FLEET_REDIS_OPTIONS, fleetReconnectDelay } from './redis-options';

/**
 * A fleet service's Redis connection: one server or a primary found through Sentinel (`Redis`),
 * or a Redis Cluster (`Cluster`). Both take the same commands; a Lua script or a multi-key command
 * on a cluster needs every key it names in one slot (one `{hash tag}`).
 */
export type FleetRedis = Redis | Cluster;

/** Where a Redis node or sentinel listens. */
export interface FleetRedisAddress {
  host: string;
  port: number;
}

/**
 * The Redis settings every service reads (`redisEnv` in `@fleet/config`): REDIS_URL,
 * REDIS_CLUSTER_NODES, REDIS_SENTINELS and REDIS_SENTINEL_NAME.
 */
export interface FleetRedisConfig {
  /** One server's `redis://` URL; with the other modes, only its credentials, database and TLS. */
  redisUrl: string;
  /** Set: a Redis Cluster, these nodes to discover it from. */
  redisClusterNodes?: readonly FleetRedisAddress[] | undefined;
  /** Set: the primary named {@link FleetRedisConfig.redisSentinelName}, asked of these sentinels. */
  redisSentinels?: readonly FleetRedisAddress[] | undefined;
  /** @default 'mymaster' */
  redisSentinelName?: string | undefined;
}

/** What a caller may add to the fleet's connection settings, in every mode. */
export interface FleetRedisExtraOptions {
  /** Connect on the first command instead of at once. @default false */
  lazyConnect?: boolean;
  /** Sent as `CLIENT SETNAME` on every connection (each node's, in a cluster). */
  connectionName?: string;
}

/** Which of the three ways to reach Redis a configuration says. */
export type FleetRedisMode = 'single' | 'sentinel' | 'cluster';

/**
 * The mode `config` selects: a cluster with REDIS_CLUSTER_NODES, Sentinel with REDIS_SENTINELS,
 * else one server.
 *
 * @throws ConfigError when both REDIS_CLUSTER_NODES and REDIS_SENTINELS are set.
 */
export function fleetRedisMode(config: FleetRedisConfig): FleetRedisMode {
  const cluster = (config.redisClusterNodes?.length ?? 0) > 0;
  const sentinel = (config.redisSentinels?.length ?? 0) > 0;
  if (cluster && sentinel) {
    throw new ConfigError(
      'REDIS_CLUSTER_NODES and REDIS_SENTINELS are both set: set only one of them.',
    );
  }
  return cluster ? 'cluster' : sentinel ? 'sentinel' : 'single';
}

/** What REDIS_URL says besides where the server is: credentials, database and TLS. */
function urlSettings(redisUrl: string): {
  username?: string;
  password?: string;
  db: number;
  tls: boolean;
} {
  const url = new URL(redisUrl);
  const db = url.pathname.replace(/^\/+/, '');
  return {
    ...(url.username === '' ? {} : { username: decodeURIComponent(url.username) }),
    ...(url.password === '' ? {} : { password: decodeURIComponent(url.password) }),
    db: db === '' ? 0 : Number(db),
    tls: url.protocol === 'rediss:',
  };
}

/** The credentials and TLS of REDIS_URL, as ioredis options. */
function credentialsOf(settings: ReturnType<typeof urlSettings>) {
  return {
    ...(settings.username === undefined ? {} : { username: settings.username }),
    ...(settings.password === undefined ? {} : { password: settings.password }),
    ...(settings.tls ? { tls: {} } : {}),
  };
}

/**
 * A failed Redis write on a server that is no longer the primary (a fail-over demoted it and the
 * connection survived): reconnect, which asks the sentinels for the new primary, and send the
 * command again (it was refused, so it ran nowhere).
 */
function reconnectOnReadonly(error: Error): 2 | false {
  return error.message.startsWith('READONLY') ? 2 : false;
}

/**
 * A Redis Cluster whose commands fail after `commandTimeout` however long they wait: ioredis's
 * cluster client queues commands without a limit while it has no connection to the cluster (at
 * boot, and while it reconnects after losing every node), where a single server's command fails
 * fast (`FLEET_REDIS_OPTIONS`). The limit counts from when the command is sent, redirections and
 * fail-over retries included. `duplicate()` (a subscriber's connection) makes another of these.
 */
class FleetCluster extends Cluster {
  // Plain properties, not #private ones: the base constructor may send a command before they
  // are set, and reading an unset #private field throws.
  private readonly fleetNodes: ClusterNode[];
  private readonly fleetCommandTimeoutMs: number | undefined;

  constructor(nodes: ClusterNode[], options: ClusterOptions, commandTimeoutMs: number) {
    super(nodes, options);
    this.fleetNodes = nodes;
    this.fleetCommandTimeoutMs = commandTimeoutMs;
  }

  override sendCommand(...args: Parameters<Cluster['sendCommand']>): unknown {
    if (this.fleetCommandTimeoutMs !== undefined) args[0].setTimeout(this.fleetCommandTimeoutMs);
    return super.sendCommand(...args);
  }

  override duplicate(overrideStartupNodes: ClusterNode[] = [], overrideOptions = {}): Cluster {
    const nodes = overrideStartupNodes.length > 0 ? overrideStartupNodes : this.fleetNodes;
    return new FleetCluster(
      [...nodes],
      { ...this.options, ...overrideOptions },
      this.fleetCommandTimeoutMs ?? FLEET_REDIS_OPTIONS.commandTimeout,
    );
  }
}

function createCluster(
  nodes: readonly FleetRedisAddress[],
  settings: ReturnType<typeof urlSettings>,
  extra: FleetRedisExtraOptions,
): Cluster {
  if (settings.db !== 0) {
    throw new ConfigError(
      `REDIS_URL names database ${settings.db}, but a Redis Cluster has only database 0: remove it from REDIS_URL (its user name, password and TLS still apply).`,
    );
  }
  const { maxRetriesPerRequest, connectTimeout, commandTimeout } = FLEET_REDIS_OPTIONS;
  return new FleetCluster(
    nodes.map(({ host, port }) => ({ host, port })),
    {
      // Each node's connection: fail-fast settings, the credentials and TLS of REDIS_URL. A lost
      // node is not reconnected by itself: the cluster refreshes its slot map and follows it.
      redisOptions: {
        maxRetriesPerRequest,
        connectTimeout,
        commandTimeout,
        ...credentialsOf(settings),
        ...(extra.connectionName === undefined ? {} : { connectionName: extra.connectionName }),
      },
      // Every node lost: reconnect from the startup nodes, as a single server does, forever.
      clusterRetryStrategy: fleetReconnectDelay,
      // A command that meets a closed connection or CLUSTERDOWN (a master failing over) is tried
      // again every 200 ms, up to maxRedirections (16) times: a fail-over of a few seconds is
      // waited out; longer ones fail the command, as an outage of a single server does.
      retryDelayOnFailover: 200,
      retryDelayOnClusterDown: 200,
      retryDelayOnTryAgain: 200,
      slotsRefreshTimeout: connectTimeout,
      // Sharded pub/sub (Redis 7): a session's or task's events go to the shard that owns its
      // channel, not to every node; subscribers read them from that master. Every service makes
      // its connection here, so all of them publish and subscribe the same way.
      shardedSubscribers: true,
      ...(extra.lazyConnect === undefined ? {} : { lazyConnect: extra.lazyConnect }),
    },
    commandTimeout,
  );
}

function createSentinelClient(
  { sentinels, name }: { sentinels: readonly FleetRedisAddress[]; name: string },
  settings: ReturnType<typeof urlSettings>,
  extra: FleetRedisExtraOptions,
): Redis {
  const options: RedisOptions = {
    ...FLEET_REDIS_OPTIONS,
    ...credentialsOf(settings),
    db: settings.db,
    // TLS to the primary only; the sentinels are asked in plain text.
    ...(settings.tls ? { enableTLSForSentinelMode: true } : {}),
    sentinels: sentinels.map(({ host, port }) => ({ host, port })),
    name,
    role: 'master',
    // One reconnection attempt asks the sentinels in turn; when none answers, it asks them all
    // again after this pause, without end (giving up would end the client for good). Commands
    // waiting meanwhile fail after `commandTimeout`.
    sentinelRetryStrategy: fleetReconnectDelay,
    // Not `failoverDetector`: when its +switch-master notice arrives while the client is already
    // reconnecting (the primary died), ioredis 5.11 aborts that reconnection and ends the client
    // for good ("Connection is closed." ever after). A dead primary is followed by reconnecting
    // (the sentinels are asked each time); a primary demoted while reachable answers READONLY,
    // which reconnects too (`reconnectOnError`).
    sentinelCommandTimeout: FLEET_REDIS_OPTIONS.connectTimeout,
    reconnectOnError: reconnectOnReadonly,
    ...extra,
  };
  return new Redis(options);
}

/**
 * Opens a service's Redis connection the way every fleet service does, in the mode its
 * configuration says (REDIS_CLUSTER_NODES, REDIS_SENTINELS, else REDIS_URL), with
 * {@link FLEET_REDIS_OPTIONS}: commands fail fast while Redis is unreachable and the client
 * reconnects by itself forever.
 *
 * - One server: `new Redis(REDIS_URL, FLEET_REDIS_OPTIONS)`.
 * - Sentinel: the sentinels name the primary; the client re-asks them on every reconnection (and
 *   reconnects when a demoted primary answers READONLY), and verifies the role of the server it
 *   reached (a replica is refused), so commands succeed on the new primary within seconds.
 *   REDIS_URL's user name, password, database and `rediss://` apply to the primary.
 * - Cluster: a `Cluster` discovered from the nodes given; commands follow MOVED/ASK, and wait out
 *   a master's fail-over (CLUSTERDOWN, closed connections) for a few seconds. REDIS_URL's user
 *   name, password and `rediss://` apply to every node. Sharded subscribers are on
 *   (`shardedSubscribers`): session and task events use SPUBLISH/SSUBSCRIBE.
 *
 * Attach an `error` listener (ioredis reports connection errors as unhandled without one).
 *
 * @throws ConfigError for both a cluster and sentinels, or a database other than 0 for a cluster.
 * @example
 * const redis = createFleetRedis(config);
 * redis.on('error', (error) => logger.warn({ err: error }, 'redis connection error'));
 */
export function createFleetRedis(
  config: FleetRedisConfig,
  extra: FleetRedisExtraOptions = {},
): FleetRedis {
  const mode = fleetRedisMode(config);
  if (mode === 'single') return new Redis(config.redisUrl, { ...FLEET_REDIS_OPTIONS, ...extra });
  const settings = urlSettings(config.redisUrl);
  return mode === 'cluster'
    ? createCluster(config.redisClusterNodes ?? [], settings, extra)
    : createSentinelClient(
        { sentinels: config.redisSentinels ?? [], name: config.redisSentinelName ?? 'mymaster' },
        settings,
        extra,
      );
}
