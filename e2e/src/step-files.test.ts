/**
 * Step files end to end, offline (gateway, orchestrator, planner, the real RAG agent and the real
 * code agent as their own processes; real Redis; the heuristic planner; no LLM): a CSV uploaded
 * through `POST /v1/documents` is named by the request, the planner puts it on the code step, the
 * orchestrator reads it back from the RAG agent for the tenant and sends it with the step, and the
 * approved pandas program reads it at `/data/sales.csv` and prints the monthly totals. A file the
 * tenant never uploaded fails the step before it is sent.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import { gatewayApi, runUntilApproval, waitForSession } from './support/gateway-api';
import { startFleet, type RunningFleet } from './support/start-fleet';
import { E2E_KEY } from './support/start-gateway';

const SALES = [
  'date,amount',
  '2026-01-05,100',
  '2026-01-20,25.5',
  '2026-02-03,40',
  '2026-02-28,60',
  '2026-03-15,7',
  '',
].join('\n');

const PROGRAM = [
  'import pandas as pd',
  "df = pd.read_csv('/data/sales.csv', parse_dates=['date'])",
  "totals = df.groupby(df['date'].dt.strftime('%Y-%m'))['amount'].sum()",
  'for month, total in totals.items():',
  "    print(f'{month} total {total:.2f}')",
].join('\n');

describe('files of a step, from an upload to /data', () => {
  let fleet: RunningFleet;
  let client: OpenAI;

  beforeAll(async () => {
    fleet = await startFleet({
      agents: [],
      ragAgent: true,
      serviceEnv: { orchestrator: { HITL_TIMEOUT_SECONDS: '120', NODE_TIMEOUT_MS: '60000' } },
      agentServices: { 'code-agent': { CODE_AGENT_TIMEOUT_MS: '20000' } },
    });
    client = new OpenAI({ apiKey: E2E_KEY, baseURL: fleet.baseURL, maxRetries: 0 });
    const form = new FormData();
    form.append('file', new Blob([SALES], { type: 'text/csv' }), 'sales.csv');
    const uploaded = await fetch(`${fleet.baseURL}/documents`, {
      method: 'POST',
      body: form,
      headers: { authorization: `Bearer ${E2E_KEY}` },
    });
    expect(uploaded.status).toBe(201);
  }, 180_000);

  afterAll(async () => {
    await fleet?.stop();
  }, 60_000);

  it('gives the code step the uploaded file, and the answer has the monthly totals', async () => {
    const { sessionId, asked } = await runUntilApproval(
      client,
      `Run this python code on sales.csv to print the monthly totals:\n\`\`\`python\n${PROGRAM}\n\`\`\``,
    );
    expect(asked).toMatchObject({ agent: 'code-agent', action: 'run-code' });
    const decided = await gatewayApi(
      fleet,
      `/sessions/${sessionId}/approvals/${String(asked['approvalId'])}`,
      { method: 'POST', body: JSON.stringify({ decision: 'approve' }) },
    );
    expect(decided.status).toBe(200);
    const done = await waitForSession(
      fleet,
      sessionId,
      (session) => session['status'] === 'completed',
    );
    const nodeId = String(asked['nodeId']);
    const node = done['nodes'][nodeId];
    expect(node['state']).toBe('completed');
    expect(node['data']).toMatchObject({
      stdout: '2026-01 total 125.50\n2026-02 total 100.00\n2026-03 total 7.00\n',
      exitCode: 0,
      approved: true,
    });
    expect(done['result']['text']).toContain('2026-01 total 125.50');
    expect(done['result']['text']).toContain('2026-02 total 100.00');
  }, 120_000);

  it('fails the code step unsent when the named file was never uploaded', async () => {
    const completion = await client.chat.completions.create(
      {
        model: 'fleet-orchestration',
        messages: [
          {
            role: 'user',
            content: `Run this python code on costs.csv:\n\`\`\`python\nprint(open('/data/costs.csv').read())\n\`\`\``,
          },
        ],
      },
      { headers: { 'X-Routing-Mode': 'orchestration' } },
    );
    const fleetResult = (completion as unknown as { fleet?: { nodes?: unknown[] } }).fleet;
    const nodes = (fleetResult?.nodes ?? []) as { agent: string; state: string; error?: string }[];
    expect(nodes).toEqual([
      expect.objectContaining({
        agent: 'code-agent',
        state: 'failed',
        error: expect.stringContaining('the file "costs.csv" is not among the documents of tenant'),
      }),
    ]);
  }, 120_000);
});
