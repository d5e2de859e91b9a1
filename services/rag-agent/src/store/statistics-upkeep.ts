import type { Pool } from 'pg';

/** The least changed chunk rows that trigger an ANALYZE. */
const ANALYZE_MIN_CHANGES = 500;
/** The share of the table that must have changed since the last ANALYZE. */
const ANALYZE_FRACTION = 0.1;

/**
 * Keeps the planner's statistics of `documents` and `chunks` fresh: ANALYZE when the chunks have
 * changed by a tenth since the last time (at least {@link ANALYZE_MIN_CHANGES} rows), and once if
 * they have none. Without statistics PostgreSQL assumes a tenant holds a fraction of a percent of
 * the chunks and scans them by the tenant index instead of the HNSW index. A server's autovacuum
 * does this too; the embedded PGlite has none.
 */
export class StatisticsUpkeep {
  /** Chunk rows changed since the last ANALYZE. */
  private changedRows = 0;
  /** The chunk row count at the last ANALYZE. */
  private analyzedRows = 0;
  private analyzing: Promise<void> | undefined;
  /** Whether this store has made sure statistics exist. */
  checked = false;

  constructor(
    private readonly pool: Pool,
    private readonly enabled: boolean,
  ) {}

  /** Runs ANALYZE when due; statistics are an optimisation, so a failure here is not the caller's. */
  async maintain(changed: number): Promise<void> {
    if (!this.enabled) return;
    this.changedRows += changed;
    this.analyzing ??= this.analyzeWhenDue().finally(() => {
      this.analyzing = undefined;
    });
    await this.analyzing;
  }

  private async analyzeWhenDue(): Promise<void> {
    try {
      if (!this.checked) {
        this.checked = true;
        const missing = await this.pool.query<{ missing: boolean }>(
          `SELECT NOT EXISTS (SELECT 1 FROM pg_stats
             WHERE schemaname = current_schema() AND tablename = 'chunks' AND attname = 'tenant')
           AND EXISTS (SELECT 1 FROM chunks) AS missing`,
        );
        if (missing.rows[0]?.missing) {
          await this.analyze();
          return;
        }
      }
      if (this.changedRows >= Math.max(ANALYZE_MIN_CHANGES, ANALYZE_FRACTION * this.analyzedRows)) {
        await this.analyze();
      }
    } catch {
      // The next change tries again.
    }
  }

  private async analyze(): Promise<void> {
    this.changedRows = 0;
    await this.pool.query('ANALYZE documents, chunks');
    const result = await this.pool.query<{ rows: number }>(
      "SELECT reltuples::float8 AS rows FROM pg_class WHERE oid = 'chunks'::regclass",
    );
    this.analyzedRows = Math.max(0, result.rows[0]?.rows ?? 0);
  }
}
