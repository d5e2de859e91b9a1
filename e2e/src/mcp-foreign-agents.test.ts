/**
 * Asking the fleet over MCP when the agents doing the work are `@a2a-js/sdk` agents of the test's
 * own (code the fleet did not write), on a running fleet: a travel agent that asks which city
 * (TASK_STATE_INPUT_REQUIRED) and an invoice agent that asks for approval before it pays
 * (TASK_STATE_AUTH_REQUIRED, not idempotent: a decision delivered twice would pay twice). The
 * question and the approval reach an MCP client as forms — an elicitation for a 2025-11-25
 * client, an input-required round for a 2026-07-28 one — and what the person gives reaches the
 * foreign agent once.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client';
import {
  createInvoiceExecutor,
  createQuestionExecutor,
  INVOICE_AGENT_CARD,
  startSdkAgent,
  TRAVEL_AGENT_CARD,
  type InvoiceExecutor,
  type QuestionExecutor,
  type SdkAgent,
} from '@fleet/testing';
import { E2E_INTERNAL_TOKEN, startFleet, type RunningFleet } from './support/start-fleet';

interface AskContent {
  state: string;
  answer: string;
  session_id: string;
}

describe('asking over MCP when @a2a-js/sdk agents ask a question or want approval', () => {
  const travel: QuestionExecutor = createQuestionExecutor();
  const invoices: InvoiceExecutor = createInvoiceExecutor();
  const agents: Record<string, SdkAgent> = {};
  let fleet: RunningFleet;

  /** The tasks an SDK agent was sent for one session. */
  const tasksFor = (agent: SdkAgent, sessionId: string): Set<string> =>
    new Set(
      agent.requests
        .filter((request) => request.fleet?.['sessionId'] === sessionId)
        .map((request) => request.taskId),
    );

  beforeAll(async () => {
    for (const [card, executor] of [
      [TRAVEL_AGENT_CARD, travel],
      [INVOICE_AGENT_CARD, invoices],
    ] as const) {
      agents[card.name] = await startSdkAgent({ ...card, executor, token: E2E_INTERNAL_TOKEN });
    }
    fleet = await startFleet({
      agents: [],
      agentUrls: Object.values(agents).map((agent) => agent.url),
      serviceEnv: { orchestrator: { MEMORY_ENABLED: 'false' } },
    });
  }, 90_000);

  afterAll(async () => {
    await fleet?.stop();
    for (const agent of Object.values(agents)) await agent.stop();
  }, 60_000);

  it('2025-11-25: the travel agent’s question is a form; the answer reaches it once', async () => {
    const forms: string[] = [];
    const client = new ClientV1(
      { name: 'e2e-mcp-v1', version: '1.0.0' },
      { capabilities: { elicitation: {} } },
    );
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      forms.push(request.params.message);
      return Promise.resolve({ action: 'accept', content: { answer: 'Lisbon' } });
    });
    await client.connect(
      new TransportV1(new URL(`${fleet.gateway.url}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${fleet.apiKey}` } },
      }),
    );
    try {
      const result = await client.callTool(
        { name: 'ask', arguments: { question: 'Book a hotel for my trip to Portugal' } },
        undefined,
        { timeout: 60_000 },
      );
      const content = result.structuredContent as AskContent;
      expect(forms).toHaveLength(1);
      expect(forms[0]).toContain('Which city should I book?');
      expect(content.state).toBe('completed');
      expect(content.answer).toContain('Booked a hotel in Lisbon.');
      const tasks = tasksFor(agents['travel']!, content.session_id);
      expect(travel.answers.filter((each) => tasks.has(each.taskId))).toEqual([
        expect.objectContaining({ text: 'Lisbon' }),
      ]);
    } finally {
      await client.close();
    }
  }, 90_000);

  it('2026-07-28: the invoice agent’s approval is an input-required round; it pays once', async () => {
    const client = new ClientV2(
      { name: 'e2e-mcp-v2', version: '2.0.0' },
      {
        versionNegotiation: { mode: 'auto' },
        capabilities: { elicitation: { form: {} } },
        inputRequired: { autoFulfill: true },
      },
    );
    const forms: string[] = [];
    client.setRequestHandler('elicitation/create', (request) => {
      forms.push(String((request.params as { message?: unknown }).message));
      return Promise.resolve({ action: 'accept', content: { decision: 'approve' } });
    });
    await client.connect(
      new TransportV2(new URL(`${fleet.gateway.url}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${fleet.apiKey}` } },
      }),
    );
    try {
      const result = await client.callTool({
        name: 'ask',
        arguments: { question: 'Pay invoice INV-1001 (€950) to our supplier' },
      });
      const content = result.structuredContent as AskContent;
      expect(forms).toHaveLength(1);
      expect(forms[0]).toContain('Pay invoice INV-1001 (€950) to ACME GmbH');
      expect(content.state).toBe('completed');
      expect(content.answer).toContain('Paid invoice INV-1001 (€950) to ACME GmbH');
      const tasks = tasksFor(agents['invoices']!, content.session_id);
      expect(invoices.payments.filter((payment) => tasks.has(payment.taskId))).toHaveLength(1);
    } finally {
      await client.close();
    }
  }, 90_000);
});
