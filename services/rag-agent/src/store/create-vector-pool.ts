import pg from 'pg';
import { registerTypes } from 'pgvector/pg';

/** The type parsers of the pools this module created. */
const typesByPool = new WeakMap<pg.Pool, pg.TypeOverrides>();

/**
 * A `pg.Pool` with its own type parsers (not pg's global ones), to which
 * {@link registerVectorTypes} adds pgvector's.
 */
export function createVectorPool(config: pg.PoolConfig): pg.Pool {
  const types = new pg.TypeOverrides();
  const pool = new pg.Pool({ ...config, types });
  typesByPool.set(pool, types);
  return pool;
}

/**
 * Teaches a pool from {@link createVectorPool} to read `vector` (and `halfvec`, `sparsevec`)
 * columns as numbers, with pgvector's `registerTypes`. The types exist once the extension does, so
 * this runs when the database opens and again after `migrate` creates the extension. Parsers are
 * per pool, so every connection gets them, including ones opened later.
 *
 * @returns false when the database has no `vector` type yet (or the pool is not one of ours).
 */
export async function registerVectorTypes(pool: pg.Pool): Promise<boolean> {
  const types = typesByPool.get(pool);
  if (!types) return false;
  try {
    await registerTypes({
      query: (text: string, values: unknown[]) => pool.query(text, values),
      setTypeParser: (oid: number, format: 'text', parse: (value: string) => unknown) =>
        types.setTypeParser(oid, format, parse),
    });
    return true;
  } catch (error) {
    if (error instanceof Error && error.message === 'vector type not found in the database') {
      return false;
    }
    throw error;
  }
}
