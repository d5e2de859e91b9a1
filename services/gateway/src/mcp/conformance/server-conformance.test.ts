import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startBearerProxy, type BearerProxy } from '../../test-support/bearer-proxy';
import { buildGateway, TEST_KEY, type TestGateway } from '../../test-support/build-gateway';
import {
  documentsClientOf,
  startRagAgentDouble,
  type RagAgentDouble,
} from '../../test-support/rag-agent-double';
import { serve, type Served } from '../../test-support/serve';

/**
 * The official MCP conformance suite's server scenarios against the gateway's `/mcp`. The suite
 * cannot send an `Authorization` header, so it talks to a loopback proxy that adds the test key
 * (production auth is unchanged). Scenarios that fail because they call the suite's own fixture
 * tools, resources and prompts are listed in `expected-failures.yml` with their reasons; the suite
 * exits 1 on any other failure and on a listed scenario that passes, so the list only shrinks.
 */
const SUITE = join(
  dirname(require.resolve('@modelcontextprotocol/conformance/package.json')),
  'dist',
  'index.js',
);
/** The Node 20 preload of @fleet/mcp (`fs.globSync` for the suite), from its build. */
const NODE20_SHIM = join(
  dirname(require.resolve('@fleet/mcp')),
  '..',
  'dist',
  'conformance',
  'node20-fs-glob.js',
);
const EXPECTED_FAILURES = join(__dirname, 'expected-failures.yml');

/** Runs the suite's server command against `url`; resolves with its exit code and output. */
function runSuite(url: string, outputDir: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const suite = spawn(
      process.execPath,
      [
        '--import',
        NODE20_SHIM,
        SUITE,
        'server',
        '--url',
        url,
        '--expected-failures',
        EXPECTED_FAILURES,
        '--output-dir',
        outputDir,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    const keep = (chunk: Buffer): void => {
      output = (output + chunk.toString()).slice(-40_000);
    };
    suite.stdout.on('data', keep);
    suite.stderr.on('data', keep);
    suite.once('error', reject);
    suite.once('close', (code) =>
      code === null
        ? reject(new Error(`the suite was killed: ${output.slice(-4000)}`))
        : resolve({ code, output }),
    );
  });
}

describe('the MCP conformance suite, server scenarios, against /mcp', () => {
  let agent: RagAgentDouble;
  let gateway: TestGateway;
  let served: Served;
  let proxy: BearerProxy;

  beforeAll(async () => {
    agent = await startRagAgentDouble();
    gateway = await buildGateway({
      upstream: 'offline',
      overrides: {
        documents: documentsClientOf(agent),
      },
    });
    served = await serve(gateway.app);
    proxy = await startBearerProxy(served.url, TEST_KEY);
  });

  afterAll(async () => {
    await proxy.close();
    await served.close();
    await gateway.close();
    await agent.close();
  });

  it('passes every scenario but the listed fixture ones, DNS-rebinding protection included', async () => {
    // The preload is @fleet/mcp's build output (`tsc -b`, which `pnpm test` runs first).
    expect(existsSync(NODE20_SHIM)).toBe(true);
    const outputDir = mkdtempSync(join(tmpdir(), 'fleet-mcp-server-conformance-'));
    const { code, output } = await runSuite(`${proxy.url}/mcp`, outputDir);
    // Exit 0: no failure outside the list and no listed scenario passing (the output says which).
    expect({ code, output: code === 0 ? '' : output.slice(-6000) }).toEqual({
      code: 0,
      output: '',
    });
    // The scenarios the fleet's own server must pass, whatever the list says.
    for (const scenario of [
      'server-initialize',
      'ping',
      'tools-list',
      'resources-list',
      'dns-rebinding-protection',
    ]) {
      expect(output).toMatch(new RegExp(`^✓ ${scenario}: [1-9]\\d* passed, 0 failed$`, 'mu'));
    }
  }, 180_000);
});
