import pg from 'pg';
import { benchMachine, startBenchServices, type BenchServices } from './bench-services';
import { createProgress } from './progress';
import { formatMs, percentile } from './stats';

/** Options for {@link runFilesBench}. */
export interface FilesBenchOptions {
  /** The repository root (services are found from it). */
  root: string;
  /** Interleaved rounds: one run with the PNG, one without, the reads. @default 20 */
  rounds: number;
  /** Reads of the stored PNG each way per round. @default 10 */
  readsPerRound: number;
  /** The Redis the services keep their tasks and sessions in. */
  redisUrl: string;
  /**
   * A PostgreSQL server with pgvector for the RAG agent's store; without it the bench serves an
   * embedded PGlite over the wire protocol (what the RAG agent embeds) and points the agent at it.
   */
  databaseUrl?: string | undefined;
}

type Quantiles = { p50: number; p90: number };

/** What {@link runFilesBench} measured. */
export interface FilesBenchResult {
  machine: string;
  database: string;
  rounds: number;
  /** The PNG's size in bytes. */
  pngBytes: number;
  /** A run whose approved program writes the PNG, through the gateway, until the answer. */
  runWithFile: Quantiles;
  /** The same run with the same program, which computes the PNG but does not write it. */
  runWithoutFile: Quantiles;
  /** `runWithFile.p50 - runWithoutFile.p50`: what carrying and keeping the file adds to a run. */
  addedPerRunP50Ms: number;
  /** `GET /v1/files/{id}/content` through the gateway (auth, tenant check, the store's A2A `get`). */
  throughGateway: Quantiles;
  /** `SELECT content FROM run_files …` straight from the same PostgreSQL. */
  direct: Quantiles;
  /** `throughGateway.p50 / direct.p50`. */
  ratioP50: number;
}

const TOKEN = 'bench-internal-token-0123456789';
const KEY = 'sk-bench-files-0123456789abcdef';
const TENANT = 'bench-files';
const WARMUP_ROUNDS = 3;
/** Side of the square noise picture: 3 × 580² ≈ 1 MB of pixels, stored uncompressed. */
const SIDE = 580;

/**
 * A program that builds a 1 MB PNG of noise (stored, not compressed, so its size is its pixels),
 * and writes it only when `write` is true: both variants do the same work, only the file differs.
 */
function pngProgram(write: boolean): string {
  return [
    'import os, struct, zlib',
    `side = ${SIDE}`,
    "rows = b''.join(b'\\x00' + os.urandom(side * 3) for _ in range(side))",
    'def chunk(kind, body):',
    "    return struct.pack('>I', len(body)) + kind + body + struct.pack('>I', zlib.crc32(kind + body) & 0xffffffff)",
    "png = b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', side, side, 8, 2, 0, 0, 0)) + chunk(b'IDAT', zlib.compress(rows, 0)) + chunk(b'IEND', b'')",
    write ? "open('noise.png', 'wb').write(png)" : 'len(png)',
    "print('built', len(png), 'bytes')",
    '',
  ].join('\n');
}

function question(write: boolean): string {
  return `Run this python code:\n\`\`\`python\n${pngProgram(write)}\`\`\``;
}

interface RunFileEvent {
  id: string;
  name: string;
  size: number;
}

/** One orchestrated run through the gateway, not streamed: its duration and its files. */
async function timeRun(
  gatewayUrl: string,
  write: boolean,
): Promise<{ ms: number; files: RunFileEvent[] }> {
  const started = process.hrtime.bigint();
  const response = await fetch(`${gatewayUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${KEY}`,
      'content-type': 'application/json',
      'x-routing-mode': 'orchestration',
    },
    body: JSON.stringify({
      model: 'fleet-orchestration',
      messages: [{ role: 'user', content: question(write) }],
    }),
  });
  const body = (await response.json()) as { fleet?: { files?: RunFileEvent[] } };
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (response.status !== 200) {
    throw new Error(`a run failed with ${response.status}: ${JSON.stringify(body).slice(0, 400)}`);
  }
  return { ms, files: body.fleet?.files ?? [] };
}

async function timeGatewayRead(gatewayUrl: string, id: string, size: number): Promise<number> {
  const started = process.hrtime.bigint();
  const response = await fetch(`${gatewayUrl}/v1/files/${id}/content`, {
    headers: { authorization: `Bearer ${KEY}` },
  });
  const bytes = Buffer.from(await response.arrayBuffer());
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (response.status !== 200 || bytes.length !== size) {
    throw new Error(`reading ${id} through the gateway: ${response.status}, ${bytes.length} bytes`);
  }
  return ms;
}

async function timeDirectRead(pool: pg.Pool, id: string, size: number): Promise<number> {
  const started = process.hrtime.bigint();
  const result = await pool.query<{ content: Buffer }>(
    'SELECT content FROM run_files WHERE tenant = $1 AND id = $2',
    [TENANT, id],
  );
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.rows[0]?.content.length !== size) throw new Error(`reading ${id} from PostgreSQL`);
  return ms;
}

function quantiles(samples: readonly number[]): Quantiles {
  return { p50: percentile(samples, 0.5), p90: percentile(samples, 0.9) };
}

/**
 * `pnpm bench files`: what a 1 MB PNG costs on its way from the code agent to the person. Each
 * round runs an approved-in-advance program in the real code agent (bubblewrap) through the real
 * gateway, orchestrator, planner and RAG agent twice — once writing the PNG, once building the
 * same bytes without writing them — and reads the stored PNG back through the gateway's Files API
 * and straight from PostgreSQL, interleaved. It prints what the file adds to a run and the ratio
 * of the two reads.
 */
export async function runFilesBench(options: FilesBenchOptions): Promise<FilesBenchResult> {
  let services: BenchServices | undefined;
  let pool: pg.Pool | undefined;
  try {
    services = await startBenchServices({
      root: options.root,
      redisUrl: options.redisUrl,
      token: TOKEN,
      databaseUrl: options.databaseUrl,
      tempPrefix: 'fleet-bench-files-',
    });
    const { start, database } = services;
    const rag = await start('rag-agent', { DATABASE_URL: services.databaseUrl });
    const code = await start('code-agent', {
      CODE_AGENT_ALLOW_UNAPPROVED: 'true',
      CODE_AGENT_TIMEOUT_MS: '30000',
    });
    const planner = await start('planner', {});
    const orchestrator = await start('orchestrator', {
      PLANNER_URL: planner.url,
      AGENT_URLS: `${rag.url},${code.url}`,
    });
    const gateway = await start('gateway', {
      ORCHESTRATOR_URL: orchestrator.url,
      RAG_AGENT_URL: rag.url,
      GATEWAY_API_KEYS: `${KEY}:${TENANT}`,
      GATEWAY_LIMITS: 'false',
    });
    pool = new pg.Pool({ connectionString: services.databaseUrl, max: 1 });

    for (let round = 0; round < WARMUP_ROUNDS; round += 1) {
      await timeRun(gateway.url, true);
      await timeRun(gateway.url, false);
    }
    const withFile: number[] = [];
    const withoutFile: number[] = [];
    const throughGateway: number[] = [];
    const direct: number[] = [];
    let pngBytes = 0;
    const progress = createProgress({ label: 'Runs and reads', total: options.rounds });
    for (let round = 0; round < options.rounds; round += 1) {
      const runs = round % 2 === 0 ? [true, false] : [false, true];
      let file: RunFileEvent | undefined;
      for (const write of runs) {
        const run = await timeRun(gateway.url, write);
        (write ? withFile : withoutFile).push(run.ms);
        if (write) file = run.files.find((candidate) => candidate.name === 'noise.png');
      }
      if (file === undefined) throw new Error('the run kept no noise.png');
      pngBytes = file.size;
      for (let read = 0; read < options.readsPerRound; read += 1) {
        if (read % 2 === 0) {
          throughGateway.push(await timeGatewayRead(gateway.url, file.id, file.size));
          direct.push(await timeDirectRead(pool, file.id, file.size));
        } else {
          direct.push(await timeDirectRead(pool, file.id, file.size));
          throughGateway.push(await timeGatewayRead(gateway.url, file.id, file.size));
        }
      }
      progress.tick();
    }
    progress.done();
    const runWithFile = quantiles(withFile);
    const runWithoutFile = quantiles(withoutFile);
    const gatewayReads = quantiles(throughGateway);
    const directReads = quantiles(direct);
    return {
      machine: benchMachine(),
      database,
      rounds: options.rounds,
      pngBytes,
      runWithFile,
      runWithoutFile,
      addedPerRunP50Ms: runWithFile.p50 - runWithoutFile.p50,
      throughGateway: gatewayReads,
      direct: directReads,
      ratioP50: gatewayReads.p50 / directReads.p50,
    };
  } finally {
    await pool?.end().catch(() => undefined);
    await services?.stop();
  }
}

/** The result as a table for people. */
export function formatFilesBench(result: FilesBenchResult): string {
  const row = (label: string, figures: Quantiles): string =>
    `  ${label.padEnd(44)} ${formatMs(figures.p50).padStart(9)} ${formatMs(figures.p90).padStart(9)}`;
  return [
    `Run files: a ${(result.pngBytes / 1e6).toFixed(2)} MB PNG from the code agent to the client, ${result.rounds} interleaved rounds`,
    `Machine: ${result.machine}`,
    `Store: ${result.database}`,
    '',
    `  ${'what'.padEnd(44)} ${'p50'.padStart(9)} ${'p90'.padStart(9)}`,
    row('run whose program writes the PNG', result.runWithFile),
    row('same run, PNG built but not written', result.runWithoutFile),
    row('GET /v1/files/{id}/content (gateway)', result.throughGateway),
    row('SELECT content FROM run_files (direct)', result.direct),
    '',
    `The file adds ${formatMs(result.addedPerRunP50Ms)} to a run at p50 (carried as an A2A file part, checked, stored).`,
    `Reading it through the gateway: ${result.ratioP50.toFixed(2)}× the direct read at p50 (${formatMs(result.throughGateway.p50 - result.direct.p50)} more).`,
  ].join('\n');
}
