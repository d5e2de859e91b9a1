import { spawnSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ValidationError } from '@fleet/errors';
import { readDataFiles } from '../data-files';
import {
  decodePng,
  MONTHLY_CHART_PROGRAM,
  MONTHLY_TOTALS,
  SALES_CSV,
} from '../test-support/sales-data';
import { createSandbox } from './create-sandbox';
import { matplotlibFontCache } from './font-cache';
import type { DataFile, Sandbox } from './sandbox';
import { DEFAULT_SANDBOX_LIMITS } from './sandbox-limits';

const SLOW = 120_000;

/** Measures what importing the data stack costs, inside the sandbox. */
const IMPORT_PROGRAM = `import json, os, resource, time
start = time.perf_counter()
import numpy, pandas, matplotlib, matplotlib.pyplot
seconds = time.perf_counter() - start
status = dict(line.split(':', 1) for line in open('/proc/self/status').read().splitlines() if ':' in line)
print(json.dumps({
    'importSeconds': round(seconds, 3),
    'maxRssKiB': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
    'vmPeakKiB': int(status['VmPeak'].split()[0]),
    'versions': [numpy.__version__, pandas.__version__, matplotlib.__version__],
    'backend': matplotlib.get_backend(),
    'configDir': [matplotlib.get_configdir(), os.access(matplotlib.get_configdir(), os.W_OK), sorted(os.listdir(matplotlib.get_configdir()))],
}))
`;

/** Every path below `root`, relative, sorted. */
async function tree(root: string, relative = ''): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(path.join(root, relative), { withFileTypes: true })) {
    const name = relative === '' ? entry.name : `${relative}/${entry.name}`;
    found.push(name);
    if (entry.isDirectory()) found.push(...(await tree(root, name)));
  }
  return found.sort();
}

const salesFile: DataFile = {
  name: 'sales.csv',
  mediaType: 'text/csv',
  bytes: Buffer.from(SALES_CSV),
};

describe('data analysis in the sandbox: numpy, pandas, matplotlib and the files at /data', () => {
  let root: string;
  let workRoot: string;
  let sandbox: Sandbox;

  beforeAll(async () => {
    const probe = spawnSync('/usr/bin/python3', ['-c', 'import numpy, pandas, matplotlib'], {
      encoding: 'utf8',
    });
    if (probe.status !== 0) {
      throw new Error(
        `numpy, pandas and matplotlib are not installed for /usr/bin/python3 (run infra/scripts/ensure-test-tools.sh): ${probe.stderr}`,
      );
    }
    // A work root two levels down: a file that escaped its run directory would show up here.
    root = await mkdtemp(path.join(os.tmpdir(), 'code-agent-data-'));
    workRoot = path.join(root, 'runs', 'here');
    await mkdir(workRoot, { recursive: true });
    for (const directory of [root, path.join(root, 'runs'), workRoot]) {
      await chmod(directory, 0o711);
    }
    // The defaults of the service (CODE_AGENT_*), which are what must suffice.
    sandbox = createSandbox({ workRoot, firstUid: 61800 });
  });

  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it(
    'imports numpy, pandas and matplotlib within the default limits, headless and without warnings',
    async () => {
      const run = await sandbox.run({ code: IMPORT_PROGRAM });
      expect(run.stderr).toBe('');
      expect(run.outcome).toBe('ok');
      const measured = JSON.parse(run.stdout) as {
        importSeconds: number;
        maxRssKiB: number;
        vmPeakKiB: number;
        backend: string;
        configDir: [string, boolean, string[]];
      };
      process.stdout.write(`import in the sandbox: ${run.stdout}`);
      expect(measured.backend.toLowerCase()).toBe('agg');
      // Its own writable config dir, holding the shared font cache (nothing rebuilt, no thread).
      expect(measured.configDir).toEqual([
        '/tmp/matplotlib',
        true,
        [expect.stringMatching(/^fontlist-v\d+\.json$/)],
      ]);
      expect(measured.vmPeakKiB * 1024).toBeLessThan(DEFAULT_SANDBOX_LIMITS.memoryBytes);
      expect(measured.importSeconds * 1000).toBeLessThan(DEFAULT_SANDBOX_LIMITS.wallClockMs / 2);
      // Caches went to the sandbox's own /tmp, not into the work directory (whose files return).
      expect(run.files).toEqual([]);
    },
    SLOW,
  );

  it(
    'reads /data/sales.csv with pandas, charts the monthly totals, returns chart.png; /data is read-only',
    async () => {
      const run = await sandbox.run({ code: MONTHLY_CHART_PROGRAM, dataFiles: [salesFile] });
      expect(run.stderr).toBe('');
      expect(run.outcome).toBe('ok');
      expect(run.stdout).toContain(MONTHLY_TOTALS);
      expect(run.stdout).toContain('backend agg');
      expect(run.stdout).toContain('read-only mount True');
      expect(run.stdout).toMatch(/^\/data\/sales\.csv refused (13|30)$/m);
      expect(run.stdout).toMatch(/^\/data\/new\.txt refused (13|30)$/m);
      expect(run.stdout).not.toContain('written');
      // Only what the program wrote comes back: the chart, not the input.
      expect(run.files.map((file) => [file.filename, file.mediaType])).toEqual([
        ['chart.png', 'image/png'],
      ]);
      const png = decodePng(run.files[0]?.bytes ?? Buffer.alloc(0));
      expect(png.width).toBeGreaterThan(0);
      expect(png.height).toBeGreaterThan(0);
      expect(await readdir(workRoot)).toEqual([]);
    },
    SLOW,
  );

  it(
    'runs the same program in the per-process fallback (one process, no threads to spare)',
    async () => {
      const fallback = createSandbox({ workRoot, firstUid: 61810, cgroup: 'off' });
      expect((await fallback.memoryBound()).enforcement).toBe('per-process');
      const run = await fallback.run({ code: MONTHLY_CHART_PROGRAM, dataFiles: [salesFile] });
      expect(run.stderr).toBe('');
      expect(run.outcome).toBe('ok');
      expect(run.stdout).toContain(MONTHLY_TOTALS);
      expect(decodePng(run.files[0]?.bytes ?? Buffer.alloc(0)).width).toBeGreaterThan(0);
    },
    SLOW,
  );

  it('puts a file part named ../../etc/passwd at /data/passwd and writes nothing elsewhere', async () => {
    const dataFiles = readDataFiles(
      [
        {
          raw: Buffer.from('not the host passwd').toString('base64'),
          filename: '../../etc/passwd',
        },
        { raw: Buffer.from('x').toString('base64'), filename: '../../../.bashrc' },
      ],
      { maxFiles: 4, maxTotalBytes: 1024 },
    );
    const run = await sandbox.run({
      code: [
        'import os',
        'print(sorted(os.listdir("/data")))',
        'print(open("/data/passwd").read())',
        'print(os.environ["DATA_DIR"])',
      ].join('\n'),
      dataFiles,
    });
    expect(run.outcome).toBe('ok');
    expect(run.stdout).toBe("['bashrc', 'passwd']\nnot the host passwd\n/data\n");
    // The run's directory is gone and nothing else was made anywhere around it.
    expect(await tree(root)).toEqual(['runs', 'runs/here']);
  });

  it('refuses a data file whose name is not a plain base name, before anything runs', async () => {
    await expect(
      sandbox.run({
        code: 'print("ran")',
        dataFiles: [{ name: '../escape.txt', mediaType: 'text/plain', bytes: Buffer.from('x') }],
      }),
    ).rejects.toBeInstanceOf(ValidationError);
    expect(await tree(root)).toEqual(['runs', 'runs/here']);
  });

  it(
    'unsandboxed, names the data directory in DATA_DIR and still charts with matplotlib',
    async () => {
      const plain = createSandbox({ mode: 'unsandboxed', workRoot });
      const run = await plain.run({
        code: [
          'import os',
          'import matplotlib.pyplot as plt',
          'data = os.environ["DATA_DIR"]',
          'print(data.startswith("/data"), sorted(os.listdir(data)), open(os.path.join(data, "sales.csv")).readline().strip())',
          'plt.plot([1, 2, 3])',
          'plt.savefig("chart.png")',
        ].join('\n'),
        dataFiles: [salesFile],
      });
      expect(run.stderr).toBe('');
      expect(run.stdout).toBe("False ['sales.csv'] date,region,amount\n");
      expect(run.files.map((file) => file.filename)).toEqual(['chart.png']);
      expect(await tree(root)).toEqual(['runs', 'runs/here']);
    },
    SLOW,
  );

  it('builds the font cache once per process and removes caches of agents that are gone', async () => {
    const parent = path.join(root, 'fonts');
    await mkdir(parent);
    const ended = spawnSync('/bin/true');
    const stale = path.join(parent, `code-agent-matplotlib-${ended.pid}-dead`);
    await mkdir(stale);
    const cache = await matplotlibFontCache('/usr/bin/python3', parent);
    expect(await matplotlibFontCache('/usr/bin/python3', parent)).toBe(cache);
    expect(cache?.files).toEqual([expect.stringMatching(/^fontlist-v\d+\.json$/)]);
    expect(await readdir(parent)).toEqual([path.basename(cache?.dir ?? '')]);
    expect(path.basename(cache?.dir ?? '')).toMatch(
      new RegExp(`^code-agent-matplotlib-${process.pid}-`),
    );
    await rm(parent, { recursive: true, force: true });
  });

  it('has no /data when the step has no files', async () => {
    const run = await sandbox.run({
      code: 'import os\nprint(os.path.exists("/data"), os.environ.get("DATA_DIR"))',
    });
    expect(run.stdout).toBe('False None\n');
  });

  it(
    'still has no network with the data stack loaded',
    async () => {
      const run = await sandbox.run({
        code: [
          'import socket',
          'import pandas as pd',
          'for url in ["http://1.1.1.1/data.csv", "https://example.com/data.csv"]:',
          '    try:',
          '        pd.read_csv(url)',
          '        print(url, "fetched")',
          '    except Exception as error:',
          '        print(url, "refused", type(error).__name__)',
          'try:',
          '    socket.create_connection(("1.1.1.1", 80), timeout=2)',
          '    print("connected")',
          'except OSError as error:',
          '    print("socket refused", error.errno)',
        ].join('\n'),
      });
      expect(run.outcome).toBe('ok');
      expect(run.stdout).not.toMatch(/fetched|connected/);
      expect(run.stdout).toContain('http://1.1.1.1/data.csv refused URLError');
      expect(run.stdout).toContain('https://example.com/data.csv refused URLError');
      expect(run.stdout).toMatch(/socket refused 101/);
    },
    SLOW,
  );
});
