import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { findLocalImage } from './start-postgres-container';

describe('findLocalImage', () => {
  let directory: string;
  /** A stand-in runtime: `image inspect <image>` succeeds for `have` only, as podman answers. */
  let fakeRuntime: string;
  beforeAll(async () => {
    directory = await mkdtemp(path.join(os.tmpdir(), 'fleet-find-image-'));
    fakeRuntime = path.join(directory, 'fake-podman');
    await writeFile(
      fakeRuntime,
      '#!/bin/sh\n[ "$5" = "have" ] && { echo sha256:1; exit 0; }\necho "Error: inspecting object: $5: image not known" >&2\nexit 125\n',
    );
    await chmod(fakeRuntime, 0o755);
  });
  afterAll(() => rm(directory, { recursive: true, force: true }));

  it('returns the first image a runtime has, in the order given', () => {
    expect(findLocalImage({ runtimes: [fakeRuntime], images: ['missing', 'have'] })).toEqual({
      found: { runtime: fakeRuntime, image: 'have' },
    });
  });

  it('says which runtime lacks the images and how to pull, without pulling', () => {
    const lookup = findLocalImage({ runtimes: [fakeRuntime], images: ['missing', 'other'] });
    expect(lookup.found).toBeUndefined();
    expect(lookup.missing).toBe(
      `${fakeRuntime} has none of missing, other (the tests do not pull; \`${fakeRuntime} pull missing\` first)`,
    );
  });

  it('says so when no runtime is installed', () => {
    const lookup = findLocalImage({
      runtimes: ['fleet-no-such-runtime', 'fleet-no-such-either'],
      images: ['any'],
    });
    expect(lookup.missing).toBe(
      'fleet-no-such-runtime: not installed; fleet-no-such-either: not installed',
    );
  });
});
