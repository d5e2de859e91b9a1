/**
 * The fleet's MCP server through `mcp-remote`, the stdio-to-HTTP bridge desktop MCP clients
 * (Claude Desktop and others that start servers as local commands) use to reach a remote server
 * with a header: a 2025-11-25 client that declared elicitation talks to the bridge over stdio,
 * the bridge to `/mcp` with the fleet's key. The client lists the tools, asks a question whose
 * mail step needs approval, is shown the approval as a form through the bridge, approves, and gets
 * the answer; the mail goes out once.
 */
import { createRequire } from 'node:module';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { ScriptedOpenAI } from '@fleet/testing';
import { waitForSession } from './support/gateway-api';
import {
  scriptedPlan,
  startPlanningModel,
  webThenMailAgents,
  type PlanningModel,
} from './support/scripted-plans';
import { startFleet, type RunningFleet } from './support/start-fleet';

/** The bridge's command line program, as its package names it. */
const BRIDGE = path.join(
  path.dirname(createRequire(__filename).resolve('mcp-remote/package.json')),
  'dist',
  'proxy.js',
);

describe('the fleet as an MCP server behind mcp-remote (what desktop clients run)', () => {
  let model: PlanningModel;
  let llm: ScriptedOpenAI;
  let fleet: RunningFleet;
  let configDir: string;
  const bridgeLog: string[] = [];

  beforeAll(async () => {
    configDir = await mkdtemp(path.join(os.tmpdir(), 'fleet-mcp-remote-'));
    model = await startPlanningModel('The summary went to Bob.');
    llm = model.llm;
    fleet = await startFleet({
      env: { OPENAI_BASE_URL: llm.baseURL, OPENAI_API_KEY: 'sk-e2e-upstream' },
      serviceEnv: { orchestrator: { MEMORY_ENABLED: 'false' } },
      agents: webThenMailAgents(),
    });
  }, 90_000);

  afterAll(async () => {
    await fleet?.stop();
    await llm?.close();
    if (configDir !== undefined) await rm(configDir, { recursive: true, force: true });
  }, 60_000);

  /** A desktop-like client: it starts the bridge as its server command and approves every form. */
  async function connectThroughBridge(forms: string[]): Promise<Client> {
    const client = new Client(
      { name: 'desktop-like', version: '1.0.0' },
      { capabilities: { elicitation: {} } },
    );
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      forms.push(request.params.message);
      return Promise.resolve({ action: 'accept', content: { decision: 'approve' } });
    });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [
        BRIDGE,
        `${fleet.gateway.url}/mcp`,
        '--header',
        `Authorization:Bearer ${fleet.apiKey}`,
        '--transport',
        'http-only',
      ],
      env: { ...(process.env as Record<string, string>), MCP_REMOTE_CONFIG_DIR: configDir },
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (chunk: Buffer) => bridgeLog.push(chunk.toString('utf8')));
    await client.connect(transport);
    return client;
  }

  it('lists the tools, asks with an approval shown as a form, and the mail goes out once', async () => {
    model.plan = scriptedPlan([
      { id: 'find', agent: 'web' },
      { id: 'send', agent: 'mail', dependsOn: ['find'] },
    ]);
    const forms: string[] = [];
    const client = await connectThroughBridge(forms);
    try {
      expect(client.getServerVersion()?.name).toBe('a2a-fleet');
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual([
        'ask',
        'get_session',
        'list_documents',
        'list_sessions',
        'search_documents',
      ]);
      const progress: string[] = [];
      const result = await client.callTool(
        { name: 'ask', arguments: { question: 'Find the summary and mail it to Bob' } },
        undefined,
        { timeout: 60_000, onprogress: (note) => progress.push(note.message ?? '') },
      );
      const content = result.structuredContent as {
        state: string;
        answer: string;
        session_id: string;
      };
      expect(forms).toHaveLength(1);
      expect(forms[0]).toContain('Send the summary to bob@example.com');
      expect(content.state).toBe('completed');
      expect(content.answer).toContain('The summary went to Bob.');
      expect(progress.length).toBeGreaterThan(0);
      const session = await waitForSession(
        fleet,
        content.session_id,
        (s) => s['status'] === 'completed',
      );
      expect(session['nodes']['send']).toMatchObject({ state: 'completed' });
    } catch (error) {
      throw new Error(`${String(error)}\nmcp-remote said:\n${bridgeLog.join('').slice(-4000)}`);
    } finally {
      await client.close();
    }
    expect(
      fleet.agents['mail']!.sideEffects.filter((effect) => effect.action === 'send-mail'),
    ).toHaveLength(1);
  }, 120_000);
});
