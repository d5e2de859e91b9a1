/**
 * The fuzz suite's knobs, read once from the environment (this is a test, not a service: house
 * style rule 15 is about service configuration).
 *
 * - `FUZZ_SEED`: the seed of every property (default {@link DEFAULT_SEED}); a failure prints the
 *   seed and the path of the counterexample to replay it.
 * - `FUZZ_RUNS`: the runs of the heaviest-weighted property (default 40); the others scale from it.
 * - `FUZZ_TIMEOUT_MS`: the bound on one request (default 10000).
 * - `FUZZ_LOG`: a file to append every request and its response to (for looking around).
 * - `FUZZ_PATH`: replay one counterexample: the `path` a failure printed (with its `FUZZ_SEED`,
 *   and `-t` selecting that one property).
 */

/** The default seed: fixed, so CI runs are reproducible. */
export const DEFAULT_SEED = 20_260_611;

function integerFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value)) throw new Error(`${name} must be an integer, not '${raw}'`);
  return value;
}

export const FUZZ_SEED = integerFromEnv('FUZZ_SEED', DEFAULT_SEED);
export const FUZZ_RUNS = Math.max(1, integerFromEnv('FUZZ_RUNS', 40));
export const FUZZ_TIMEOUT_MS = Math.max(1000, integerFromEnv('FUZZ_TIMEOUT_MS', 10_000));

/** Runs for a property weighted `weight` (1 = `FUZZ_RUNS`), at least 1. */
export function runs(weight: number): number {
  return Math.max(1, Math.round(FUZZ_RUNS * weight));
}

/**
 * How long jest lets a property take: its runs at the request bound each would be far too long,
 * so this assumes most requests answer fast and bounds the worst case at a few minutes.
 */
export function propertyTimeout(numRuns: number, perRunMs = 1500): number {
  return Math.max(120_000, numRuns * perRunMs + 4 * FUZZ_TIMEOUT_MS);
}

export const FUZZ_LOG = process.env['FUZZ_LOG'] || undefined;
export const FUZZ_PATH = process.env['FUZZ_PATH'] || undefined;
