import { createRequire } from 'node:module';
import os from 'node:os';
import { createMessage, dataPart, textPart } from '@fleet/a2a';
import { A2AClient } from '@fleet/a2a/client';
import { startService, type RunningService } from '@fleet/testing';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { createProgress } from './progress';
import { formatMs, percentile } from './stats';

/** Options for {@link runMcpBench}. */
export interface McpBenchOptions {
  /** The repository root (the tools agent is `services/tools-agent/dist/main.js`). */
  root: string;
  /** Interleaved rounds, one call each way per round. @default 300 */
  rounds: number;
  /** The Redis the tools agent keeps its tasks in. */
  redisUrl: string;
  /** Extra arguments for the tools agent's `node`, e.g. `['--cpu-prof', '--cpu-prof-dir=/tmp/prof']`. */
  toolsAgentNodeArgs?: readonly string[] | undefined;
}

/** What {@link runMcpBench} measured. */
export interface McpBenchResult {
  machine: string;
  rounds: number;
  /** Round-trip milliseconds of the call straight from the SDK's client over stdio. */
  direct: { p50: number; p90: number; p99: number };
  /** Round-trip milliseconds of the same call as an A2A task of the tools agent. */
  throughAgent: { p50: number; p90: number; p99: number };
  /** `throughAgent.p50 - direct.p50`. */
  addedP50Ms: number;
}

/** The goal: what the tools agent may add to one call at the median, over stdio. */
export const MCP_ADDED_P50_GOAL_MS = 2;

const TOKEN = 'bench-internal-token-0123456789';
const WARMUP_ROUNDS = 30;
const ECHO_ARGUMENTS = { message: 'benchmark' };

function quantiles(samples: readonly number[]): McpBenchResult['direct'] {
  return {
    p50: percentile(samples, 0.5),
    p90: percentile(samples, 0.9),
    p99: percentile(samples, 0.99),
  };
}

/** `node <server-everything> stdio`: the reference server, started the same way both ways. */
function everythingServer(): { command: string; args: string[] } {
  const require = createRequire(__filename);
  const entry = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
  return { command: process.execPath, args: [entry, 'stdio'] };
}

async function timeDirect(client: Client): Promise<number> {
  const started = process.hrtime.bigint();
  const result = await client.callTool({ name: 'echo', arguments: ECHO_ARGUMENTS });
  const elapsed = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.isError === true) throw new Error('the direct echo call failed');
  return elapsed;
}

async function timeThroughAgent(client: A2AClient): Promise<number> {
  const message = createMessage({
    parts: [
      textPart(`everything/echo ${JSON.stringify(ECHO_ARGUMENTS)}`),
      dataPart({
        fleet: {
          sessionId: 'bench',
          nodeId: 'echo',
          skill: 'everything/echo',
          dependencyOutputs: {},
          entities: {},
          tenant: 'bench',
          memory: [],
        },
      }),
    ],
  });
  const started = process.hrtime.bigint();
  const reply = await client.sendMessage({ message });
  const elapsed = Number(process.hrtime.bigint() - started) / 1e6;
  const state = 'status' in reply ? reply.status.state : undefined;
  if (state !== 'TASK_STATE_COMPLETED') {
    throw new Error(`the tools agent's echo task ended ${state ?? 'without a task'}`);
  }
  return elapsed;
}

/**
 * `pnpm bench mcp`: one MCP tool call (server-everything's `echo`, over stdio) straight from the
 * official SDK's client, and the same call as an A2A task of the tools agent (offline: the step
 * names the tool and gives its JSON arguments; the operator's rule runs it without approval),
 * interleaved round by round in one run. The difference of the medians is what the tools agent
 * adds: A2A over HTTP, the task store in Redis, the argument check and the result's parts.
 */
export async function runMcpBench(options: McpBenchOptions): Promise<McpBenchResult> {
  const server = everythingServer();
  const sdk = new Client({ name: 'fleet-bench', version: '0.1.0' });
  const transport = new StdioClientTransport({ ...server, stderr: 'ignore' });
  let agent: RunningService | undefined;
  try {
    await sdk.connect(transport);
    agent = await startService({
      root: options.root,
      name: 'tools-agent',
      nodeArgs: options.toolsAgentNodeArgs,
      env: {
        FLEET_INTERNAL_TOKEN: TOKEN,
        REDIS_URL: options.redisUrl,
        NODE_ENV: 'production',
        MCP_SERVERS: JSON.stringify({
          mcpServers: { everything: { ...server, approval: { echo: 'never' } } },
        }),
      },
    });
    const a2a = new A2AClient({ url: `${agent.url}/a2a`, token: TOKEN });
    for (let round = 0; round < WARMUP_ROUNDS; round += 1) {
      await timeDirect(sdk);
      await timeThroughAgent(a2a);
    }
    const direct: number[] = [];
    const through: number[] = [];
    const progress = createProgress({ label: 'MCP calls', total: options.rounds });
    for (let round = 0; round < options.rounds; round += 1) {
      // Interleaved, the order alternating, so drift hits both paths alike.
      if (round % 2 === 0) {
        direct.push(await timeDirect(sdk));
        through.push(await timeThroughAgent(a2a));
      } else {
        through.push(await timeThroughAgent(a2a));
        direct.push(await timeDirect(sdk));
      }
      progress.tick();
    }
    progress.done();
    const directQuantiles = quantiles(direct);
    const throughQuantiles = quantiles(through);
    return {
      machine: machine(),
      rounds: options.rounds,
      direct: directQuantiles,
      throughAgent: throughQuantiles,
      addedP50Ms: throughQuantiles.p50 - directQuantiles.p50,
    };
  } finally {
    await sdk.close().catch(() => undefined);
    await agent?.stop();
  }
}

function machine(): string {
  const cpus = os.cpus();
  return `${cpus[0]?.model ?? 'unknown CPU'} × ${cpus.length}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
}

/** The result as a table for people. */
export function formatMcpBench(result: McpBenchResult): string {
  const row = (label: string, figures: McpBenchResult['direct']): string =>
    `  ${label.padEnd(34)} ${formatMs(figures.p50).padStart(9)} ${formatMs(figures.p90).padStart(9)} ${formatMs(figures.p99).padStart(9)}`;
  const verdict =
    result.addedP50Ms <= MCP_ADDED_P50_GOAL_MS
      ? `within the goal of ≤ ${MCP_ADDED_P50_GOAL_MS} ms`
      : `above the goal of ≤ ${MCP_ADDED_P50_GOAL_MS} ms`;
  return [
    `MCP call: server-everything's echo over stdio, ${result.rounds} interleaved rounds`,
    `Machine: ${result.machine}`,
    '',
    `  ${'path'.padEnd(34)} ${'p50'.padStart(9)} ${'p90'.padStart(9)} ${'p99'.padStart(9)}`,
    row('SDK client → server', result.direct),
    row('A2A → tools agent → server', result.throughAgent),
    '',
    `Added by the tools agent at p50: ${formatMs(result.addedP50Ms)} (${verdict}).`,
  ].join('\n');
}
