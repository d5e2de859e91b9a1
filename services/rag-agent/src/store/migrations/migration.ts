/** What a migration's SQL may depend on. */
export interface MigrationContext {
  /** The embedding size, fixed by the first migration (`vector(N)`). */
  dimensions: number;
}

/** One schema change, applied once, in `version` order, inside the migration transaction. */
export interface Migration {
  /** Unique and increasing: 1, 2, … */
  version: number;
  /** A short kebab-case name, recorded in `schema_migrations`. */
  name: string;
  /** The SQL, possibly several statements (simple query protocol, no parameters). */
  sql(context: MigrationContext): string;
}
