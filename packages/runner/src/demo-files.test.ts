import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import { DEMO_CORPUS_DIR } from './demo-corpus';
import { prepareDemoFiles } from './demo-files';
import { fleetPaths } from './paths';

describe('prepareDemoFiles', () => {
  let root: string | undefined;
  afterEach(async () => {
    if (root !== undefined) await rm(root, { recursive: true, force: true });
  });

  it('copies the demo documents once and then leaves the copy, and the originals, alone', async () => {
    root = await mkdtemp(path.join(tmpdir(), 'fleet-demo-files-'));
    const corpus = path.join(root, DEMO_CORPUS_DIR);
    await mkdir(corpus, { recursive: true });
    await writeFile(path.join(corpus, 'handbook.md'), '# Handbook\n');
    const paths = fleetPaths(root);

    const first = await prepareDemoFiles(paths);
    expect(first).toEqual({ dir: path.join(root, '.fleet', 'files'), created: true });
    expect(await readdir(first.dir)).toEqual(['handbook.md']);

    await writeFile(path.join(first.dir, 'notes.txt'), 'written through the tools agent');
    await writeFile(path.join(first.dir, 'handbook.md'), 'changed');
    const second = await prepareDemoFiles(paths);
    expect(second.created).toBe(false);
    expect((await readdir(second.dir)).sort()).toEqual(['handbook.md', 'notes.txt']);
    expect(await readFile(path.join(corpus, 'handbook.md'), 'utf8')).toBe('# Handbook\n');
  });

  it('starts with an empty folder in a checkout without demo documents', async () => {
    root = await mkdtemp(path.join(tmpdir(), 'fleet-demo-files-'));
    const { dir, created } = await prepareDemoFiles(fleetPaths(root));
    expect(created).toBe(true);
    expect(await readdir(dir)).toEqual([]);
  });
});
