import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { benchMachine, startBenchServices, type BenchServices } from './bench-services';
import { createProgress } from './progress';
import { formatMs, percentile } from './stats';

/** Options for {@link runMcpServerBench}. */
export interface McpServerBenchOptions {
  /** The repository root (services and the demo corpus are found from it). */
  root: string;
  /** Interleaved rounds, one search each way per round. @default 300 */
  rounds: number;
  /** The Redis the gateway keeps its sessions in. */
  redisUrl: string;
  /**
   * A PostgreSQL server with pgvector for the RAG agent's store; without it the bench serves an
   * embedded PGlite over the wire protocol (what the RAG agent embeds) and points the agent at it.
   */
  databaseUrl?: string | undefined;
}

type Quantiles = { p50: number; p95: number };

/** What {@link runMcpServerBench} measured. */
export interface McpServerBenchResult {
  machine: string;
  database: string;
  rounds: number;
  /** Documents of the demo corpus searched. */
  documents: number;
  /** Distinct queries, used in turn (the demo corpus's evaluation questions). */
  queries: number;
  /** The MCP `search_documents` tool over Streamable HTTP, one connected client. */
  mcp: Quantiles;
  /**
   * The same `tools/call` as the SDK client sends it (its headers and body, the query swapped),
   * posted with `fetch` and its JSON read, without the client's own work: what the server costs.
   */
  rawMcp: Quantiles;
  /** `POST /v1/documents/search` with the same query. */
  rest: Quantiles;
  /** `mcp.p50 / rest.p50`. */
  ratioP50: number;
  /** `rawMcp.p50 / rest.p50`. */
  rawRatioP50: number;
}

/** The goal: what MCP may cost over the REST route at the median, as a ratio. */
export const MCP_SERVER_RATIO_GOAL = 1.2;

const TOKEN = 'bench-internal-token-0123456789';
const KEY = 'sk-bench-mcp-server-0123456789ab';
const TENANT = 'bench-mcp-server';
const WARMUP_ROUNDS = 30;
const LIMIT = 5;
const CORPUS_DIR = 'services/rag-agent/demo-corpus';
const QUESTIONS_FILE = 'questions.json';
/** Most evaluation questions read from the corpus's questions file. */
const MAX_QUERIES = 100;

/** Uploads every document of the demo corpus through `POST /v1/documents`; their count. */
async function uploadCorpus(root: string, gatewayUrl: string): Promise<number> {
  const directory = path.join(root, CORPUS_DIR);
  const names = (await readdir(directory)).filter((name) => name !== QUESTIONS_FILE).sort();
  for (const name of names) {
    const form = new FormData();
    form.append('file', new Blob([await readFile(path.join(directory, name))]), name);
    const response = await fetch(`${gatewayUrl}/v1/documents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}` },
      body: form,
    });
    if (response.status >= 300) {
      throw new Error(
        `uploading ${name}: ${response.status} ${(await response.text()).slice(0, 300)}`,
      );
    }
  }
  return names.length;
}

/** The corpus's evaluation questions, the queries both ways search for. */
async function readQueries(root: string): Promise<string[]> {
  const raw = await readFile(path.join(root, CORPUS_DIR, QUESTIONS_FILE), 'utf8');
  const questions = (JSON.parse(raw) as { question?: unknown }[])
    .map((entry) => entry.question)
    .filter((question): question is string => typeof question === 'string')
    .slice(0, MAX_QUERIES);
  if (questions.length === 0) throw new Error(`no questions in ${CORPUS_DIR}/${QUESTIONS_FILE}`);
  return questions;
}

async function timeMcp(client: Client, query: string): Promise<number> {
  const started = process.hrtime.bigint();
  const result = await client.callTool({
    name: 'search_documents',
    arguments: { query, limit: LIMIT },
  });
  const elapsed = Number(process.hrtime.bigint() - started) / 1e6;
  const hits = (result.structuredContent as { data?: unknown[] } | undefined)?.data;
  if (result.isError === true || !Array.isArray(hits) || hits.length === 0) {
    throw new Error(`search_documents over MCP found nothing for '${query}'`);
  }
  return elapsed;
}

/** A `tools/call` request as the SDK client sent it: its headers and JSON-RPC body. */
interface CapturedCall {
  headers: Record<string, string>;
  body: { params: { arguments: Record<string, unknown> } } & Record<string, unknown>;
}

async function timeRawMcp(gatewayUrl: string, call: CapturedCall, query: string): Promise<number> {
  const body = {
    ...call.body,
    params: { ...call.body.params, arguments: { query, limit: LIMIT } },
  };
  const started = process.hrtime.bigint();
  const response = await fetch(`${gatewayUrl}/mcp`, {
    method: 'POST',
    headers: call.headers,
    body: JSON.stringify(body),
  });
  const answer = (await response.json()) as {
    result?: { structuredContent?: { data?: unknown[] } };
  };
  const elapsed = Number(process.hrtime.bigint() - started) / 1e6;
  const hits = answer.result?.structuredContent?.data;
  if (response.status !== 200 || !Array.isArray(hits) || hits.length === 0) {
    throw new Error(`a raw tools/call: ${response.status} for '${query}'`);
  }
  return elapsed;
}

async function timeRest(gatewayUrl: string, query: string): Promise<number> {
  const started = process.hrtime.bigint();
  const response = await fetch(`${gatewayUrl}/v1/documents/search`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query, limit: LIMIT }),
  });
  const body = (await response.json()) as { data?: unknown[] };
  const elapsed = Number(process.hrtime.bigint() - started) / 1e6;
  if (response.status !== 200 || !Array.isArray(body.data) || body.data.length === 0) {
    throw new Error(`POST /v1/documents/search: ${response.status} for '${query}'`);
  }
  return elapsed;
}

function quantiles(samples: readonly number[]): Quantiles {
  return { p50: percentile(samples, 0.5), p95: percentile(samples, 0.95) };
}

/**
 * `pnpm bench mcp-server`: the fleet as an MCP server against its REST API. One real gateway and
 * one real RAG agent (processes, the demo corpus uploaded through the gateway) serve the same
 * hybrid search: the `search_documents` tool at `/mcp` (the official v2 client, connected once,
 * negotiating 2026-07-28), the same `tools/call` posted raw with `fetch` (the server's share), and
 * `POST /v1/documents/search`, one call each per round in a rotating order, the same query every
 * way. It prints p50 and p95 of each and the ratios of the medians to REST (goal ≤
 * {@link MCP_SERVER_RATIO_GOAL}× for the SDK client).
 */
export async function runMcpServerBench(
  options: McpServerBenchOptions,
): Promise<McpServerBenchResult> {
  let services: BenchServices | undefined;
  let client: Client | undefined;
  try {
    services = await startBenchServices({
      root: options.root,
      redisUrl: options.redisUrl,
      token: TOKEN,
      databaseUrl: options.databaseUrl,
      tempPrefix: 'fleet-bench-mcp-server-',
    });
    const { start, database } = services;
    const rag = await start('rag-agent', { DATABASE_URL: services.databaseUrl });
    const gateway = await start('gateway', {
      RAG_AGENT_URL: rag.url,
      GATEWAY_API_KEYS: `${KEY}:${TENANT}`,
      GATEWAY_LIMITS: 'false',
    });
    const documents = await uploadCorpus(options.root, gateway.url);
    const queries = await readQueries(options.root);

    let captured: CapturedCall | undefined;
    client = new Client(
      { name: 'fleet-bench', version: '0.1.0' },
      { versionNegotiation: { mode: 'auto' } },
    );
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${KEY}` } },
        // Keeps the first tools/call as sent, for the raw row.
        fetch: (url, init) => {
          const body = typeof init?.body === 'string' ? init.body : '';
          if (captured === undefined && body.includes('"tools/call"')) {
            captured = {
              headers: Object.fromEntries(new Headers(init?.headers).entries()),
              body: JSON.parse(body) as CapturedCall['body'],
            };
          }
          return fetch(url, init);
        },
      }),
    );
    for (let round = 0; round < WARMUP_ROUNDS; round += 1) {
      const query = queries[round % queries.length] as string;
      await timeMcp(client, query);
      if (captured === undefined) throw new Error('the client sent no tools/call to capture');
      await timeRawMcp(gateway.url, captured, query);
      await timeRest(gateway.url, query);
    }
    const call = captured as CapturedCall;
    const samples = { mcp: [] as number[], rawMcp: [] as number[], rest: [] as number[] };
    const measure: Record<keyof typeof samples, (query: string) => Promise<number>> = {
      mcp: (query) => timeMcp(client as Client, query),
      rawMcp: (query) => timeRawMcp(gateway.url, call, query),
      rest: (query) => timeRest(gateway.url, query),
    };
    const orders: (keyof typeof samples)[][] = [
      ['mcp', 'rawMcp', 'rest'],
      ['rest', 'mcp', 'rawMcp'],
      ['rawMcp', 'rest', 'mcp'],
    ];
    const progress = createProgress({ label: 'Searches', total: options.rounds });
    for (let round = 0; round < options.rounds; round += 1) {
      const query = queries[round % queries.length] as string;
      for (const way of orders[round % orders.length] ?? []) {
        samples[way].push(await measure[way](query));
      }
      progress.tick();
    }
    progress.done();
    const overMcp = quantiles(samples.mcp);
    const overRawMcp = quantiles(samples.rawMcp);
    const overRest = quantiles(samples.rest);
    return {
      machine: benchMachine(),
      database,
      rounds: options.rounds,
      documents,
      queries: queries.length,
      mcp: overMcp,
      rawMcp: overRawMcp,
      rest: overRest,
      ratioP50: overMcp.p50 / overRest.p50,
      rawRatioP50: overRawMcp.p50 / overRest.p50,
    };
  } finally {
    await client?.close().catch(() => undefined);
    await services?.stop();
  }
}

/** The result as a table for people. */
export function formatMcpServerBench(result: McpServerBenchResult): string {
  const row = (label: string, figures: Quantiles): string =>
    `  ${label.padEnd(44)} ${formatMs(figures.p50).padStart(9)} ${formatMs(figures.p95).padStart(9)}`;
  const verdict =
    result.ratioP50 <= MCP_SERVER_RATIO_GOAL
      ? `within the ${MCP_SERVER_RATIO_GOAL}× goal`
      : `over the ${MCP_SERVER_RATIO_GOAL}× goal`;
  return [
    `The fleet as an MCP server: search_documents over MCP against POST /v1/documents/search, ${result.rounds} interleaved rounds`,
    `Machine: ${result.machine}`,
    `Real gateway and RAG agent, the demo corpus (${result.documents} documents), ${result.queries} queries in turn; store: ${result.database}`,
    '',
    `  ${'what'.padEnd(44)} ${'p50'.padStart(9)} ${'p95'.padStart(9)}`,
    row('search_documents, v2 SDK client (2026-07-28)', result.mcp),
    row('the same tools/call posted raw (no client)', result.rawMcp),
    row('POST /v1/documents/search', result.rest),
    '',
    `MCP at p50: ${result.ratioP50.toFixed(2)}× the REST route (${formatMs(result.mcp.p50 - result.rest.p50)} more), ${verdict}.`,
    `The raw tools/call: ${result.rawRatioP50.toFixed(2)}× (${formatMs(result.rawMcp.p50 - result.rest.p50)} more): the server's share, without the client's work.`,
  ].join('\n');
}
