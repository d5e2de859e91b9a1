import { appendFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { followFile, readLastLines } from './log-tail';

let directory: string;
beforeEach(async () => {
  directory = await mkdtemp(path.join(os.tmpdir(), 'fleet-log-tail-'));
});
afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

describe('readLastLines', () => {
  it('returns the last lines, with or without a final newline', async () => {
    const file = path.join(directory, 'a.log');
    await writeFile(file, 'one\ntwo\nthree\n');
    await expect(readLastLines({ file, count: 2 })).resolves.toEqual(['two', 'three']);
    await writeFile(file, 'one\ntwo\nthree');
    await expect(readLastLines({ file, count: 2 })).resolves.toEqual(['two', 'three']);
    await expect(readLastLines({ file, count: 10 })).resolves.toEqual(['one', 'two', 'three']);
  });

  it('reads only the tail of a file larger than one chunk, keeping characters whole', async () => {
    const file = path.join(directory, 'big.log');
    const lines = Array.from({ length: 5000 }, (_, index) => `line ${index} ü€ ${'x'.repeat(30)}`);
    await writeFile(file, `${lines.join('\n')}\n`);
    await expect(readLastLines({ file, count: 3 })).resolves.toEqual(lines.slice(-3));
    await expect(readLastLines({ file, count: 3000 })).resolves.toEqual(lines.slice(-3000));
  });

  it('ignores what came before an offset and after a limit', async () => {
    const file = path.join(directory, 'b.log');
    await writeFile(file, 'old run\n');
    const from = 'old run\n'.length;
    await appendFile(file, 'new run\nlater\n');
    await expect(readLastLines({ file, count: 10, from })).resolves.toEqual(['new run', 'later']);
    await expect(readLastLines({ file, count: 10, until: from })).resolves.toEqual(['old run']);
  });

  it('has no lines for a missing file', async () => {
    await expect(
      readLastLines({ file: path.join(directory, 'none.log'), count: 5 }),
    ).resolves.toEqual([]);
  });
});

describe('followFile', () => {
  it('delivers appended lines, joining a line written in two parts', async () => {
    const file = path.join(directory, 'f.log');
    await writeFile(file, 'before\n');
    const controller = new AbortController();
    const seen: string[] = [];
    const following = followFile({
      file,
      from: 'before\n'.length,
      intervalMs: 20,
      signal: controller.signal,
      onLine: (line) => {
        seen.push(line);
        if (line === 'third') controller.abort();
      },
    });
    await appendFile(file, 'first\nsec');
    await new Promise((resolve) => setTimeout(resolve, 60));
    await appendFile(file, 'ond\nthird\n');
    await following;
    expect(seen).toEqual(['first', 'second', 'third']);
  });

  it('starts over when the file is truncated', async () => {
    const file = path.join(directory, 't.log');
    await writeFile(file, 'a long first line\n');
    const controller = new AbortController();
    const seen: string[] = [];
    const following = followFile({
      file,
      from: 'a long first line\n'.length,
      intervalMs: 20,
      signal: controller.signal,
      onLine: (line) => {
        seen.push(line);
        controller.abort();
      },
    });
    await new Promise((resolve) => setTimeout(resolve, 60));
    await writeFile(file, 'new\n');
    await following;
    expect(seen).toEqual(['new']);
  });
});
