import type { Cluster, Redis } from 'ioredis';
import { ServiceUnavailableError } from '@fleet/errors';
import { redisKeySlot } from './redis-key-slot';

/** How many Redis replicas must hold a claim before the side effect it guards may happen. */
export interface ClaimReplication {
  /** Replicas that must acknowledge the claim (`WAIT <replicas> …`); 0 waits for none. */
  replicas: number;
  /** How long to wait for them, in milliseconds. */
  waitMs: number;
}

/** The connection that serves `key`: the Redis itself, or on a cluster the master of its slot. */
function connectionFor(redis: Redis | Cluster, key: string): Redis {
  if ((redis as { isCluster?: boolean }).isCluster !== true) return redis as Redis;
  const cluster = redis as Cluster;
  const nodeKey = cluster.slots[redisKeySlot(key)]?.[0];
  const node =
    nodeKey === undefined
      ? undefined
      : cluster
          .nodes('master')
          .find((master) => `${master.options.host}:${master.options.port}` === nodeKey);
  if (node === undefined) {
    throw new ServiceUnavailableError(
      `No Redis Cluster master is known for the slot of ${key} yet: the claim was not made.`,
    );
  }
  return node;
}

/**
 * Claims `key` once (SET NX with a TTL) and returns true only when the claim is also on
 * `replicas` replicas: `WAIT` on the same connection that wrote it (on a cluster, the connection
 * to the master of the key's slot). A claim fewer replicas acknowledged in time is removed again
 * and refused with a 503, so the side effect it guards does not happen: a fail-over to a replica
 * that never had the claim could otherwise let the same side effect run a second time.
 *
 * @returns false when the key was claimed before.
 * @throws ServiceUnavailableError when fewer replicas than asked acknowledged the claim.
 */
export async function claimReplicated(
  redis: Redis | Cluster,
  claim: { key: string; value: string; ttlSeconds: number },
  { replicas, waitMs }: ClaimReplication,
): Promise<boolean> {
  const connection = connectionFor(redis, claim.key);
  const claimed = await connection.set(claim.key, claim.value, 'EX', claim.ttlSeconds, 'NX');
  if (claimed !== 'OK') return false;
  const acknowledged = await connection.wait(replicas, waitMs);
  if (acknowledged >= replicas) return true;
  // Not replicated in time: no side effect on a claim a fail-over could forget.
  await connection.del(claim.key).catch(() => undefined);
  throw new ServiceUnavailableError(
    `The claim of a side effect reached ${acknowledged} of ${replicas} Redis replicas within ${waitMs} ms (REDIS_CLAIM_REPLICAS): it was not carried out, so a fail-over cannot run it twice. Try again once the replicas are back.`,
  );
}
