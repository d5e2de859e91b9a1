import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { ConfigError, safeParseJson } from '@fleet/errors';

/** One service process the runner started. */
export const serviceStateSchema = z.object({
  name: z.string(),
  /** Its pid, which is also its process group id (it runs detached). */
  pid: z.number().int().positive(),
  port: z.number().int().positive(),
  url: z.string(),
  /** The compiled entry it runs; used to tell it from an unrelated process that reused the pid. */
  entry: z.string(),
  logFile: z.string(),
  /** Size of the log file when it started: its own output begins there. */
  logOffset: z.number().int().nonnegative(),
});

/** Where the fleet's Redis came from. */
export const redisStateSchema = z.object({
  url: z.string(),
  /** `env`: REDIS_URL; `local`: an already running local Redis; `started`: the runner's own. */
  source: z.enum(['env', 'local', 'started']),
  /** The redis-server the runner started (source `started`). */
  pid: z.number().int().positive().optional(),
  port: z.number().int().positive().optional(),
  logFile: z.string().optional(),
});

/** `.fleet/state.json`: what `fleet up` started, for `status`, `logs` and `down`. */
export const fleetStateSchema = z.object({
  version: z.literal(1),
  startedAt: z.string(),
  services: z.array(serviceStateSchema),
  redis: redisStateSchema.optional(),
  /**
   * The caller's environment when the fleet started: a service started again later (`fleet up`,
   * `fleet restart`) gets the same configuration. Absent in state files of older runners.
   */
  environment: z.record(z.string(), z.string()).optional(),
});

/** One started service. */
export type ServiceState = z.infer<typeof serviceStateSchema>;
/** The fleet's Redis. */
export type RedisState = z.infer<typeof redisStateSchema>;
/** The whole state file. */
export type FleetState = z.infer<typeof fleetStateSchema>;

/**
 * Reads the state file; `undefined` when there is none. A file that does not parse throws a
 * `ConfigError` that says which file to remove.
 */
export async function readState(file: string): Promise<FleetState | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const parsed = safeParseJson({ text, schema: fleetStateSchema, subject: file });
  if (!parsed.success) {
    throw new ConfigError(
      `${parsed.error.message}. Stop any fleet processes by hand, then delete the file.`,
      { cause: parsed.error },
    );
  }
  return parsed.value;
}

/**
 * Writes the state file atomically (temp file + rename), mode 0600: it holds a Redis URL and the
 * environment the fleet started with.
 */
export async function writeState(file: string, state: FleetState): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
  await rename(temporary, file);
}

/** Removes the state file; nothing happens if there is none. */
export async function removeState(file: string): Promise<void> {
  await rm(file, { force: true });
}
