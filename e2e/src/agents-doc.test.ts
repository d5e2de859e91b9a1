/**
 * docs/agents.md ("Bring your own agent"): its complete example agent is real code. The code block
 * is `e2e/src/examples/invoice-agent.ts` verbatim (compiled by `tsc -b` with the rest of e2e), and
 * the compiled file runs as its own process behind a running fleet, as a reader would run it.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import { getFreePort, startProcess, type RunningProcess } from '@fleet/testing';
import { eventsOf, gatewayApi, streamChat, type Json } from './support/gateway-api';
import { E2E_INTERNAL_TOKEN, startFleet, type RunningFleet } from './support/start-fleet';
import { REPO_ROOT } from './support/start-gateway';

const DOC_PATH = path.join(REPO_ROOT, 'docs/agents.md');
const EXAMPLE_SOURCE = 'e2e/src/examples/invoice-agent.ts';
const EXAMPLE_BUILT = path.join(REPO_ROOT, 'e2e/dist/examples/invoice-agent.js');

/** The fenced block right after the doc's `<!-- example: <path> -->` marker. */
function exampleBlock(markdown: string, source: string): string {
  const marker = `<!-- example: ${source} -->`;
  const at = markdown.indexOf(marker);
  if (at === -1) throw new Error(`docs/agents.md has no ${marker}`);
  const match = /```ts\n([\s\S]*?)\n```/.exec(markdown.slice(at + marker.length));
  if (match?.[1] === undefined) throw new Error(`no ts code block after ${marker}`);
  return match[1];
}

/** The example's payment log lines for a session. */
function paymentsIn(agent: RunningProcess, sessionId: string): string[] {
  return agent
    .output()
    .split('\n')
    .filter((line) => line.startsWith('paid ') && line.endsWith(`session=${sessionId}`));
}

describe('docs/agents.md', () => {
  it(`shows ${EXAMPLE_SOURCE} exactly, as its complete example`, () => {
    const source = readFileSync(path.join(REPO_ROOT, EXAMPLE_SOURCE), 'utf8');
    expect(exampleBlock(readFileSync(DOC_PATH, 'utf8'), EXAMPLE_SOURCE)).toBe(source.trimEnd());
  });

  describe('its example agent, run as its own process behind the fleet', () => {
    let agent: RunningProcess;
    let fleet: RunningFleet;
    let client: OpenAI;

    beforeAll(async () => {
      const port = await getFreePort();
      agent = await startProcess({
        name: 'example invoice agent',
        args: [EXAMPLE_BUILT],
        env: { PORT: String(port), AGENT_TOKEN: E2E_INTERNAL_TOKEN },
        readyUrl: `http://127.0.0.1:${port}/healthz`,
      });
      fleet = await startFleet({
        agents: [],
        agentUrls: [`http://127.0.0.1:${port}`],
        serviceEnv: { orchestrator: { MEMORY_ENABLED: 'false' } },
      });
      client = new OpenAI({ apiKey: fleet.apiKey, baseURL: fleet.baseURL, maxRetries: 0 });
    }, 90_000);

    afterAll(async () => {
      await fleet?.stop();
      await agent?.stop();
    }, 60_000);

    const decide = (sessionId: string, approvalId: string, body: Json) =>
      gatewayApi(fleet, `/sessions/${sessionId}/approvals/${approvalId}`, {
        method: 'POST',
        body: JSON.stringify(body),
      });

    it('asks, and pays once when approved', async () => {
      const chat = await streamChat(client, {
        message: 'Pay invoice INV-3001 (€250)',
        onEvent: async (event, { sessionId }) => {
          if (event.type === 'approval-required') {
            await decide(sessionId, String(event['approvalId']), { decision: 'approve' });
          }
        },
      });
      expect(eventsOf(chat.events, 'approval-required')).toEqual([
        expect.objectContaining({
          agent: 'invoice-payer',
          action: 'pay-invoice',
          summary: 'Pay invoice INV-3001 (€250) to ACME GmbH',
          riskDescription: 'Money leaves the company account',
        }),
      ]);
      expect(chat.content).toContain('Paid invoice INV-3001 (€250), reference PAY-');
      expect(paymentsIn(agent, chat.sessionId)).toHaveLength(1);
    });

    it('pays nothing when denied, and the step shows as not done', async () => {
      const chat = await streamChat(client, {
        message: 'Pay invoice INV-3002 (€80)',
        onEvent: async (event, { sessionId }) => {
          if (event.type === 'approval-required') {
            await decide(sessionId, String(event['approvalId']), {
              decision: 'deny',
              instructions: 'Already paid by card',
            });
          }
        },
      });
      const result = chat.events.find((event) => event.type === 'run-result');
      expect(result?.['nodes']).toEqual([
        expect.objectContaining({ agent: 'invoice-payer', state: 'rejected' }),
      ]);
      expect(chat.content).toContain('Already paid by card');
      expect(paymentsIn(agent, chat.sessionId)).toEqual([]);
    });
  });
});
