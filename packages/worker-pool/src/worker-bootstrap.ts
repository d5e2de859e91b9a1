import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** What the bootstrap needs to load a pool's entry module in a worker thread. */
export interface BootstrapData {
  /** Absolute path of the entry module (`.js` in a built service, `.ts` under jest). */
  entry: string;
  /** For a `.ts` entry: the TypeScript compiler module to transpile with. */
  typescript?: string;
  /** For a `.ts` entry: the workspace root, whose `packages/<name>/src` the `@fleet/*` imports map to. */
  sourceRoot?: string;
}

/**
 * The worker thread's first script (CommonJS, run with `eval: true`, so it needs no file of its
 * own in `dist/` or in an image). It loads the pool's entry module, which calls `serveJobs`.
 *
 * A built service's entry is JavaScript and is simply required. Under jest the services run from
 * their TypeScript sources, but a worker thread is plain Node, outside jest's module system: a
 * `.ts` entry is loaded through a require hook that transpiles each TypeScript file with the
 * compiler (types are not checked; `pnpm test` runs `tsc -b` first; the output is cached in the
 * system's temporary folder), and `@fleet/<name>` imports
 * resolve to `packages/<name>/src`, as jest.config.js's moduleNameMapper does, so a change to a
 * package's source is seen without a rebuild. ESM-only dependencies (marked, css-select) load
 * through Node's own `require(esm)` (Node ≥ 20.19), which jest cannot use but a worker can.
 */
export const WORKER_BOOTSTRAP = `
'use strict';
const { workerData } = require('node:worker_threads');
const { entry, typescript, sourceRoot } = workerData.fleetWorkerPool;
if (entry.endsWith('.ts')) {
  const fs = require('node:fs');
  const path = require('node:path');
  const Module = require('node:module');
  const ts = require(typescript);
  const compilerOptions = {
    module: ts.ModuleKind.CommonJS,
    target: ts.ScriptTarget.ES2022,
    esModuleInterop: true,
    inlineSourceMap: true,
  };
  // Transpiled files are kept on disk by path, size and time, so that a replaced worker (or the
  // next test's) loads in a fraction of the time.
  const cache = path.join(require('node:os').tmpdir(), 'fleet-worker-pool-ts');
  fs.mkdirSync(cache, { recursive: true });
  Module._extensions['.ts'] = function (module, filename) {
    const stat = fs.statSync(filename);
    const key = require('node:crypto')
      .createHash('sha1')
      .update([filename, stat.size, stat.mtimeMs, ts.version].join(':'))
      .digest('hex');
    const cached = path.join(cache, key + '.js');
    let output;
    try {
      output = fs.readFileSync(cached, 'utf8');
    } catch {
      const source = fs.readFileSync(filename, 'utf8');
      output = ts.transpileModule(source, { compilerOptions, fileName: filename }).outputText;
      const partial = cached + '.' + process.pid + '.' + require('node:worker_threads').threadId;
      fs.writeFileSync(partial, output);
      fs.renameSync(partial, cached);
    }
    module._compile(output, filename);
  };
  const resolveFilename = Module._resolveFilename;
  Module._resolveFilename = function (request, parent, isMain, options) {
    const match = /^@fleet\\/([a-z0-9-]+)(?:\\/(.+))?$/.exec(request);
    if (match && sourceRoot) {
      const candidate = path.join(sourceRoot, 'packages', match[1], 'src', match[2] || '', 'index.ts');
      if (fs.existsSync(candidate)) return candidate;
    }
    return resolveFilename.call(this, request, parent, isMain, options);
  };
}
require(entry);
`;

/** The workspace root above `start` (the folder with `pnpm-workspace.yaml`), if there is one. */
function workspaceRoot(start: string): string | undefined {
  let folder = start;
  for (;;) {
    if (existsSync(join(folder, 'pnpm-workspace.yaml'))) return folder;
    const parent = dirname(folder);
    if (parent === folder) return undefined;
    folder = parent;
  }
}

/**
 * The bootstrap's data for `entry`: for a TypeScript entry, where the compiler and the workspace
 * sources are.
 *
 * @throws Error for a `.ts` entry when the `typescript` package cannot be found from it.
 */
export function bootstrapData(entry: string): BootstrapData {
  if (!entry.endsWith('.ts')) return { entry };
  const typescript = createRequire(entry).resolve('typescript');
  const sourceRoot = workspaceRoot(dirname(entry));
  return { entry, typescript, ...(sourceRoot === undefined ? {} : { sourceRoot }) };
}
