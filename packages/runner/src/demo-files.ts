import { cp, mkdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { DEMO_CORPUS_DIR } from './demo-corpus';
import type { FleetPaths } from './paths';

/**
 * Makes the folder the tools agent's default filesystem server serves (`paths.filesDir`): a copy
 * of the demo documents, made once; a folder that exists is left as it is, with whatever people
 * wrote into it; without demo documents (a checkout that has none) it starts empty. Returns the
 * folder and whether it was made now.
 *
 * @example
 * const { dir } = await prepareDemoFiles(paths);
 */
export async function prepareDemoFiles(
  paths: FleetPaths,
): Promise<{ dir: string; created: boolean }> {
  const dir = paths.filesDir;
  const exists = await stat(dir).then(
    (found) => found.isDirectory(),
    () => false,
  );
  if (exists) return { dir, created: false };
  const source = path.join(paths.root, DEMO_CORPUS_DIR);
  const hasDemo = await stat(source).then(
    (found) => found.isDirectory(),
    () => false,
  );
  if (hasDemo) await cp(source, dir, { recursive: true, errorOnExist: false });
  else await mkdir(dir, { recursive: true });
  return { dir, created: true };
}
