import path from 'node:path';

/** Where the runner keeps its files, all under `<root>/.fleet/` (git-ignored). */
export interface FleetPaths {
  /** The repository root: services are found under it. */
  readonly root: string;
  /** `<root>/.fleet`. */
  readonly dir: string;
  /** `<root>/.fleet/logs`: one `<service>.log` per service, appended to. */
  readonly logsDir: string;
  /** `<root>/.fleet/state.json`: what is running. */
  readonly stateFile: string;
  /** `<root>/.fleet/secrets.json`: the generated dev key and internal token (mode 0600). */
  readonly secretsFile: string;
  /** `<root>/.fleet/redis`: working directory of a redis-server the runner starts. */
  readonly redisDir: string;
  /** `<root>/.fleet/rag-pglite`: the RAG agent's embedded PostgreSQL (`RAG_DATA_DIR`). */
  readonly ragDataDir: string;
  /**
   * `<root>/.fleet/files`: the folder the tools agent's default filesystem server serves, a copy
   * of the demo documents made on the first `fleet up`, so an approved write never touches the
   * repository's own files.
   */
  readonly filesDir: string;
}

/** The runner's paths for a repository root. */
export function fleetPaths(root: string): FleetPaths {
  const dir = path.join(root, '.fleet');
  return {
    root,
    dir,
    logsDir: path.join(dir, 'logs'),
    stateFile: path.join(dir, 'state.json'),
    secretsFile: path.join(dir, 'secrets.json'),
    redisDir: path.join(dir, 'redis'),
    ragDataDir: path.join(dir, 'rag-pglite'),
    filesDir: path.join(dir, 'files'),
  };
}

/** The log file of one service (or `redis`). */
export function logFileFor(paths: FleetPaths, name: string): string {
  return path.join(paths.logsDir, `${name}.log`);
}

/** A path shown to people: relative to the root when it is inside it. */
export function displayPath(paths: FleetPaths, file: string): string {
  const relative = path.relative(paths.root, file);
  return relative.startsWith('..') || path.isAbsolute(relative) ? file : relative;
}
