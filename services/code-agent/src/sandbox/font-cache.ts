import { rmSync } from 'node:fs';
import { chmod, lstat, mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { runBoundedProcess } from './run-bounded-process';

/** matplotlib's font cache, built once, which every run gets read-only in its own config dir. */
export interface FontCache {
  /** The host directory that holds it. */
  dir: string;
  /** Its files (`fontlist-v<version>.json`), by name. */
  files: string[];
}

/** The cache directories' names: `code-agent-matplotlib-<pid of the agent>-<random>`. */
const CACHE_PREFIX = 'code-agent-matplotlib-';

/** Whether a process with this id exists (EPERM: it does, as another user). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes the caches of agents (of this user) that ended without removing theirs. */
async function removeStaleCaches(parent: string): Promise<void> {
  const pattern = new RegExp(`^${CACHE_PREFIX}(\\d+)-`);
  for (const name of await readdir(parent).catch(() => [] as string[])) {
    const pid = Number(pattern.exec(name)?.[1] ?? Number.NaN);
    if (!Number.isInteger(pid) || pid === process.pid || isAlive(pid)) continue;
    const dir = path.join(parent, name);
    const info = await lstat(dir).catch(() => undefined);
    if (info?.isDirectory() !== true || info.uid !== process.getuid?.()) continue;
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
}

/**
 * Builds matplotlib's font cache: `import matplotlib.font_manager` with `MPLCONFIGDIR` pointing at
 * the cache's directory. Run with no `PATH` (so no `fc-list`) and an empty `HOME`, matplotlib
 * lists only the fonts in its own data and in `/usr/share/fonts`-like system directories, which
 * the sandbox has at the same paths. Without matplotlib, or if it fails, there is no cache and
 * runs build their own.
 */
async function buildFontCache(python: string, parent: string): Promise<FontCache | undefined> {
  await removeStaleCaches(parent);
  const dir = await mkdtemp(path.join(parent, `${CACHE_PREFIX}${process.pid}-`));
  try {
    const result = await runBoundedProcess({
      command: python,
      args: ['-I', '-B', '-c', 'import matplotlib.font_manager'],
      env: {
        HOME: dir,
        MPLCONFIGDIR: dir,
        MPLBACKEND: 'Agg',
        XDG_CACHE_HOME: dir,
        XDG_CONFIG_HOME: dir,
        LANG: 'C.UTF-8',
      },
      cwd: dir,
      wallClockMs: 60_000,
      maxOutputBytes: 64 * 1024,
    });
    const files = (await readdir(dir)).filter((name) => /^fontlist-v\d+\.json$/.test(name));
    if (result.exitCode !== 0 || files.length === 0) {
      await rm(dir, { recursive: true, force: true });
      return undefined;
    }
    // The sandbox's user (another uid when the agent runs as root) reads it through a bind.
    await chmod(dir, 0o755);
    for (const name of files) await chmod(path.join(dir, name), 0o644);
    return { dir, files };
  } catch {
    await rm(dir, { recursive: true, force: true });
    return undefined;
  }
}

const built = new Map<string, Promise<FontCache | undefined>>();

/**
 * matplotlib's font cache for `python`, built on first use and then shared by every run of this
 * process (removed when it exits). Each run gets it read-only inside its own writable
 * `MPLCONFIGDIR`, so `import matplotlib.pyplot` neither scans the fonts again (a helper thread
 * the per-process fallback may not have, and more address space) nor writes a cache. Undefined
 * when matplotlib is not installed. Caches left by agents that ended without removing theirs are
 * removed when the next one is built.
 *
 * @example
 * const cache = await matplotlibFontCache('/usr/bin/python3');
 */
export function matplotlibFontCache(
  python: string,
  parent: string = os.tmpdir(),
): Promise<FontCache | undefined> {
  const key = `${python}\u0000${parent}`;
  let cache = built.get(key);
  if (cache === undefined) {
    cache = buildFontCache(python, parent);
    built.set(key, cache);
    void cache.then((found) => {
      if (found === undefined) return;
      process.once('exit', () => {
        // Synchronous on exit: best effort, the directory is small.
        try {
          rmSync(found.dir, { recursive: true, force: true });
        } catch {
          // Left for the system's temp cleaner.
        }
      });
    });
  }
  return cache;
}
