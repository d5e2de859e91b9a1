import type { Pool, PoolClient } from 'pg';

/**
 * Runs `work` in a transaction on one pooled connection: COMMIT when it resolves, ROLLBACK when it
 * throws (the error is rethrown). A connection whose ROLLBACK fails is discarded, not returned to
 * the pool. `work` must use `client`, never `pool`: with the embedded database the pool holds a
 * single connection, so a `pool.query` inside would wait for itself.
 *
 * @example
 * const id = await withTransaction(pool, async (client) => { await client.query(…); return id; });
 */
export async function withTransaction<T>(
  pool: Pool,
  work: (client: PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch((rollbackError: unknown) => {
      broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
    });
    throw error;
  } finally {
    client.release(broken);
  }
}
