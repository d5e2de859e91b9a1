import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { McpServerConfig } from '@fleet/mcp';
import pg from 'pg';

/** The machine's PostgreSQL as its superuser (trust auth), as CI and every developer machine have it. */
export const POSTGRES_ADMIN_URL = 'postgresql://postgres@127.0.0.1:5432/postgres';

/** The role `infra/postgres/mcp-readonly.sql` creates. */
export const MCP_READER_ROLE = 'fleet_mcp_reader';

/** The SQL that creates the MCP reader role, from the repository (from `src/` and `dist/` alike). */
export const MCP_READONLY_SQL = resolve(
  __dirname,
  '..',
  '..',
  '..',
  '..',
  'infra',
  'postgres',
  'mcp-readonly.sql',
);

/** The customers every database gets: 25 of them, revenue falling from 250000 to 10000. */
export const CUSTOMERS: readonly { name: string; totalRevenue: number }[] = Array.from(
  { length: 25 },
  (_, index) => ({
    name: `Customer ${String.fromCharCode(65 + index)}`,
    totalRevenue: 250_000 - index * 10_000,
  }),
);

/** A database made for one test run, and what reaches it. */
export interface CustomersDatabase {
  /** `fleet_mcp_<pid>_<hex>`: unique per run. */
  name: string;
  /** The database as its owner (postgres). */
  ownerUrl: string;
  /** The database as `fleet_mcp_reader`. */
  readerUrl: string;
  /**
   * The `mcpServers` entry of `@modelcontextprotocol/server-postgres` connected as the reader, as
   * docs/mcp-database.md has it (`approval: { query: 'never' }`, safe only with that role).
   */
  server: McpServerConfig;
  /** The same server connected as the owner: what the role is there to prevent. */
  ownerServer: McpServerConfig;
  /** A client connected to the database as its owner, to check what happened. */
  owner: pg.Client;
  /** Disconnects and drops the database. */
  drop(): Promise<void>;
}

function postgresServerScript(): string {
  return join(
    dirname(require.resolve('@modelcontextprotocol/server-postgres/package.json')),
    'dist',
    'index.js',
  );
}

async function connect(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
  } catch (error) {
    await client.end().catch(() => undefined);
    const where = new URL(url);
    throw new Error(
      `PostgreSQL is not reachable at ${where.host} as the user ${where.username || 'postgres'} (${error instanceof Error ? error.message : String(error)}). ` +
        "These tests need it and do not skip: start it (pg_ctlcluster <version> main start, or the machine's service) and run them again.",
      { cause: error },
    );
  }
  return client;
}

/**
 * Creates a database with a unique name on the machine's PostgreSQL, a `customers` table (name,
 * total revenue) holding {@link CUSTOMERS}, applies `infra/postgres/mcp-readonly.sql` to it, and
 * returns the `mcpServers` entries of `@modelcontextprotocol/server-postgres` for the read-only
 * role and for the owner. Call `drop()` when done.
 *
 * @throws Error saying PostgreSQL is not reachable (and how to start it) when it is not.
 * @example
 * const database = await createCustomersDatabase();
 * const connection = createMcpConnection('sales', database.server);
 * await connection.callTool('query', { sql: 'SELECT name FROM customers' });
 * await connection.close();
 * await database.drop();
 */
export async function createCustomersDatabase({
  adminUrl = POSTGRES_ADMIN_URL,
}: { adminUrl?: string } = {}): Promise<CustomersDatabase> {
  const name = `fleet_mcp_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = await connect(adminUrl);
  let owner: pg.Client | undefined;
  try {
    await admin.query(`CREATE DATABASE ${name}`);
    const ownerUrl = new URL(adminUrl);
    ownerUrl.pathname = `/${name}`;
    owner = await connect(ownerUrl.href);
    await owner.query(
      'CREATE TABLE customers (id serial PRIMARY KEY, name text NOT NULL, total_revenue numeric(12, 2) NOT NULL)',
    );
    await owner.query(
      'INSERT INTO customers (name, total_revenue) SELECT * FROM unnest($1::text[], $2::numeric[])',
      [
        CUSTOMERS.map((customer) => customer.name),
        CUSTOMERS.map((customer) => customer.totalRevenue),
      ],
    );
    await owner.query(readFileSync(MCP_READONLY_SQL, 'utf8'));
  } catch (error) {
    await owner?.end().catch(() => undefined);
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
    await admin.end();
    throw error;
  }
  const readerUrl = new URL(adminUrl);
  readerUrl.username = MCP_READER_ROLE;
  readerUrl.pathname = `/${name}`;
  const ownerUrl = new URL(adminUrl);
  ownerUrl.pathname = `/${name}`;
  const script = postgresServerScript();
  const ownerClient = owner;
  return {
    name,
    ownerUrl: ownerUrl.href,
    readerUrl: readerUrl.href,
    server: {
      command: process.execPath,
      args: [script, readerUrl.href],
      approval: { query: 'never' },
      timeoutMs: 20_000,
    },
    ownerServer: { command: process.execPath, args: [script, ownerUrl.href] },
    owner: ownerClient,
    async drop() {
      await ownerClient.end().catch(() => undefined);
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}
