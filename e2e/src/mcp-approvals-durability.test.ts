/**
 * Approvals over MCP on a running fleet: an MCP client (the official SDK, 2026-07-28 era) asks
 * the fleet a question whose mail step needs a person's consent, gets an input-required result
 * with a signed `requestState`, and — after the gateway is killed (SIGKILL) and restarted between
 * the person's approval and the client's retry — retries with the approval against the new
 * gateway: the run completes and the mail goes out exactly once, also when the retry is sent twice.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { ScriptedOpenAI } from '@fleet/testing';
import { waitForSession } from './support/gateway-api';
import {
  scriptedPlan,
  startPlanningModel,
  webThenMailAgents,
  type PlanningModel,
} from './support/scripted-plans';
import { startFleet, type RunningFleet } from './support/start-fleet';

/** The first round of an `ask` that needs an approval: the form asked for, and the state. */
interface InputRequired {
  inputRequests?: Record<string, { method: string; params: { message: string } }>;
  requestState?: string;
}

describe('approvals over MCP survive a gateway restart', () => {
  let model: PlanningModel;
  let llm: ScriptedOpenAI;
  let fleet: RunningFleet;

  beforeAll(async () => {
    model = await startPlanningModel('The summary went to Bob.');
    llm = model.llm;
    fleet = await startFleet({
      env: { OPENAI_BASE_URL: llm.baseURL, OPENAI_API_KEY: 'sk-e2e-upstream' },
      serviceEnv: {
        orchestrator: { SESSION_RECOVERY_INTERVAL_MS: '1000', MEMORY_ENABLED: 'false' },
      },
      agents: webThenMailAgents(),
    });
  }, 90_000);

  afterAll(async () => {
    await fleet?.stop();
    await llm?.close();
  }, 60_000);

  /** A 2026-07-28 client of the fleet's MCP server that handles input-required rounds itself. */
  async function connect(): Promise<Client> {
    const client = new Client(
      { name: 'e2e-mcp', version: '1.0.0' },
      {
        versionNegotiation: { mode: 'auto' },
        capabilities: { elicitation: { form: {} } },
        inputRequired: { autoFulfill: false },
      },
    );
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${fleet.gateway.url}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${fleet.apiKey}` } },
      }),
    );
    return client;
  }

  it('decides the approval once, on the restarted gateway, and the mail is sent once', async () => {
    model.plan = scriptedPlan([
      { id: 'find', agent: 'web' },
      { id: 'send', agent: 'mail', dependsOn: ['find'] },
    ]);
    const args = { question: 'Find the summary and mail it to Bob', route: 'orchestration' };
    const first = await connect();
    let asked: InputRequired;
    try {
      asked = (await first.callTool(
        { name: 'ask', arguments: args },
        { allowInputRequired: true },
      )) as unknown as InputRequired;
    } finally {
      await first.close();
    }
    expect(asked.inputRequests?.['approval']?.method).toBe('elicitation/create');
    expect(asked.inputRequests?.['approval']?.params.message).toContain(
      'Send the summary to bob@example.com',
    );
    expect(asked.requestState).toMatch(/^[\w-]+\.[\w-]+$/);

    // The person approved in their client; the gateway dies before the retry reaches it.
    await fleet.crashAndRestart('gateway');

    const retry = {
      name: 'ask',
      arguments: args,
      inputResponses: { approval: { action: 'accept', content: { decision: 'approve' } } },
      requestState: asked.requestState,
    };
    const second = await connect();
    try {
      const done = await second.callTool(retry, { allowInputRequired: true });
      const content = done.structuredContent as {
        state: string;
        answer: string;
        session_id: string;
      };
      expect(content).toMatchObject({ state: 'completed' });
      expect(content.answer).toContain('The summary went to Bob.');
      const session = await waitForSession(
        fleet,
        content.session_id,
        (s) => s['status'] === 'completed',
      );
      expect(session['nodes']['send']).toMatchObject({ state: 'completed' });

      // The same retry again (a client that did not hear the answer): no second decision, no
      // second mail.
      const again = await second.callTool(retry, { allowInputRequired: true });
      expect(again.structuredContent).toMatchObject({ state: 'completed' });
    } finally {
      await second.close();
    }
    expect(
      fleet.agents['mail']!.sideEffects.filter((effect) => effect.action === 'send-mail'),
    ).toHaveLength(1);
  }, 120_000);
});
