import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startEmbeddedServer, type EmbeddedServer } from '@fleet/rag-agent/store';
import { startService, type RunningService } from '@fleet/testing';

/** What {@link startBenchServices} needs. */
export interface BenchServicesOptions {
  /** The repository root (the services are started from their built `dist/`). */
  root: string;
  redisUrl: string;
  /** The fleet's internal token every service is started with. */
  token: string;
  /** A PostgreSQL server to use; undefined: an embedded PGlite served over the wire protocol. */
  databaseUrl?: string | undefined;
  /** The name of the embedded database's temporary folder. */
  tempPrefix: string;
}

/** The services a bench started, and the database they share. */
export interface BenchServices {
  databaseUrl: string;
  /** The database in words, for the bench's report. */
  database: string;
  /** Starts one service (production mode, `warn` logs) with the shared settings and `env`. */
  start(name: string, env: Record<string, string>): Promise<RunningService>;
  /** Stops every service started, newest first, then the embedded database; never throws. */
  stop(): Promise<void>;
}

/**
 * The database and the service starter a bench that boots real services works with: the given
 * PostgreSQL server, or an embedded PGlite in a temporary folder removed by `stop()`.
 *
 * @example
 * const services = await startBenchServices({ root, redisUrl, token, tempPrefix: 'fleet-bench-x-' });
 * try { const rag = await services.start('rag-agent', { DATABASE_URL: services.databaseUrl }); }
 * finally { await services.stop(); }
 */
export async function startBenchServices(options: BenchServicesOptions): Promise<BenchServices> {
  const stoppers: (() => Promise<unknown>)[] = [];
  let dataDir: string | undefined;
  let embedded: EmbeddedServer | undefined;
  let databaseUrl = options.databaseUrl;
  let database = 'PostgreSQL server (DATABASE_URL)';
  if (databaseUrl === undefined) {
    dataDir = await mkdtemp(path.join(os.tmpdir(), options.tempPrefix));
    embedded = await startEmbeddedServer({ dataDir, maxConnections: 4 });
    databaseUrl = `postgres://postgres@${embedded.host}:${embedded.port}/postgres`;
    database = 'embedded PGlite served over the wire protocol';
  }
  const shared = {
    FLEET_INTERNAL_TOKEN: options.token,
    REDIS_URL: options.redisUrl,
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
  };
  return {
    databaseUrl,
    database,
    async start(name, env) {
      const service = await startService({ root: options.root, name, env: { ...shared, ...env } });
      stoppers.push(() => service.stop());
      return service;
    },
    async stop() {
      for (const stop of stoppers.reverse()) await stop().catch(() => undefined);
      await embedded?.stop().catch(() => undefined);
      if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** The machine a bench ran on, in one line: CPU model × cores, memory, Node. */
export function benchMachine(): string {
  const cpus = os.cpus();
  return `${cpus[0]?.model ?? 'unknown CPU'} × ${cpus.length}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
}
