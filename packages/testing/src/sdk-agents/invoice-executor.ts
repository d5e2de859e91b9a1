import type { AgentExecutor, ExecutionEventBus, RequestContext } from '@a2a-js/sdk/server';
import type { StartSdkAgentOptions } from './start-sdk-agent';
import { artifactEvent, sdkData, sdkText, statusEvent, taskSnapshot } from './sdk-events';

/** A payment the invoice agent made. */
export interface InvoicePayment {
  taskId: string;
  invoice: string;
  amount: string;
  /** The id of the message that approved it. */
  messageId: string;
  at: number;
}

/** A decision the invoice agent received on a task that waited for one. */
export interface InvoiceDecision {
  taskId: string;
  messageId: string;
  /** As the agent read it: from the `approvalDecision` data part, else from the text. */
  decision: 'approve' | 'deny' | 'unknown';
  /** Where it read it from. */
  from: 'data' | 'text' | 'none';
  instructions: string | undefined;
}

/** Options for {@link createInvoiceExecutor}. */
export interface InvoiceExecutorOptions {
  /**
   * How it asks for approval (TASK_STATE_AUTH_REQUIRED): `data`, a status message with a text part
   * and the fleet's `{ approval: { action, summary, preview, risk } }` data part, `risk` in words;
   * `text`, a status message with one text part and nothing else — and it then reads the
   * decision from the text alone ("Approved…" / "Denied…"), ignoring data parts. @default 'data'
   */
  ask?: 'data' | 'text';
  /** The risk, in words. @default 'Money leaves the company account' */
  risk?: string;
  /** Who is paid. @default 'ACME GmbH' */
  payee?: string;
}

/** The invoice agent's executor, with what it did. */
export interface InvoiceExecutor extends AgentExecutor {
  /** Every payment made, in order. Not idempotent on purpose: a second approval pays twice. */
  payments: InvoicePayment[];
  /** Every decision received. */
  decisions: InvoiceDecision[];
}

/** A card for the invoice agent that the fleet's heuristic planner routes invoice payments to. */
export const INVOICE_AGENT_CARD = {
  name: 'invoices',
  description: 'Pays supplier invoices from the company account, after a person approves.',
  skills: [
    {
      id: 'pay-invoice',
      name: 'Pay invoice',
      description: 'Pays a supplier invoice by its number.',
      tags: ['invoice', 'supplier'],
      examples: ['Pay invoice INV-1001'],
    },
  ],
} satisfies Pick<StartSdkAgentOptions, 'name' | 'description' | 'skills'>;

/** A card for the text-only variant (`ask: 'text'`): utility bills. */
export const BILLS_AGENT_CARD = {
  name: 'utility-bills',
  description: 'Settles utility bills (electricity, water, gas), after a person approves.',
  skills: [
    {
      id: 'settle-bill',
      name: 'Settle bill',
      description: 'Settles a utility bill.',
      tags: ['bill', 'electricity', 'utility'],
      examples: ['Settle the electricity bill INV-2002'],
    },
  ],
} satisfies Pick<StartSdkAgentOptions, 'name' | 'description' | 'skills'>;

function invoiceOf(text: string): { invoice: string; amount: string } {
  return {
    invoice: /\bINV-\d+\b/i.exec(text)?.[0].toUpperCase() ?? 'INV-1001',
    amount: /€\s?\d[\d,.]*/.exec(text)?.[0] ?? '€1,200',
  };
}

function readDecision(
  context: RequestContext,
  { textOnly }: { textOnly: boolean },
): Omit<InvoiceDecision, 'taskId' | 'messageId'> {
  const { parts } = context.userMessage;
  const data = textOnly
    ? undefined
    : (sdkData(parts, 'approvalDecision') as
        { decision?: unknown; instructions?: unknown } | undefined);
  if (data?.decision === 'approve' || data?.decision === 'deny') {
    return {
      decision: data.decision,
      from: 'data',
      instructions: typeof data.instructions === 'string' ? data.instructions : undefined,
    };
  }
  const text = sdkText(parts).trim();
  if (/^approved/i.test(text))
    return { decision: 'approve', from: 'text', instructions: undefined };
  if (/^denied/i.test(text)) {
    const reason = text.replace(/^denied\.?\s*/i, '');
    return { decision: 'deny', from: 'text', instructions: reason === '' ? undefined : reason };
  }
  return { decision: 'unknown', from: 'none', instructions: undefined };
}

/**
 * An invoice agent on `@a2a-js/sdk`: a new task reads the invoice number (`INV-…`) and amount
 * (`€…`) from the text and asks for approval (TASK_STATE_AUTH_REQUIRED, see
 * {@link InvoiceExecutorOptions.ask}); the continuation pays on an approve decision — read from the
 * `approvalDecision` data part, or (`ask: 'text'`) from text beginning "Approved" — and completes
 * with a `result` artifact, or ends REJECTED on anything else. Like every SDK agent it publishes the task snapshot
 * first on every execute, continuations included (the task then still shows AUTH_REQUIRED).
 *
 * It does NOT remember which messages it acted on: a decision delivered twice pays twice, which
 * is what lets a test prove the orchestrator delivers it once.
 *
 * @example
 * const executor = createInvoiceExecutor({ ask: 'text' });
 * await startSdkAgent({ ...BILLS_AGENT_CARD, executor });
 */
export function createInvoiceExecutor({
  ask = 'data',
  risk = 'Money leaves the company account',
  payee = 'ACME GmbH',
}: InvoiceExecutorOptions = {}): InvoiceExecutor {
  const payments: InvoicePayment[] = [];
  const decisions: InvoiceDecision[] = [];

  function execute(context: RequestContext, bus: ExecutionEventBus): Promise<void> {
    bus.publish(taskSnapshot(context));
    const first = context.task?.history?.[0];
    const { invoice, amount } = invoiceOf(
      sdkText(first === undefined ? context.userMessage.parts : first.parts),
    );
    if (context.task === undefined) {
      bus.publish(statusEvent(context, { state: 'TASK_STATE_WORKING' }));
      const summary = `Pay invoice ${invoice} (${amount}) to ${payee}`;
      bus.publish(
        statusEvent(context, {
          state: 'TASK_STATE_AUTH_REQUIRED',
          parts:
            ask === 'text'
              ? [{ text: `${summary}?` }]
              : [
                  { text: `Approve this payment? ${summary}.` },
                  {
                    data: {
                      approval: {
                        action: 'pay-invoice',
                        summary,
                        preview: `Invoice: ${invoice}\nPayee: ${payee}\nAmount: ${amount}\nFrom: the company account`,
                        risk,
                      },
                    },
                    mediaType: 'application/json',
                  },
                ],
        }),
      );
      return Promise.resolve();
    }
    const decision = readDecision(context, { textOnly: ask === 'text' });
    decisions.push({
      taskId: context.taskId,
      messageId: context.userMessage.messageId,
      ...decision,
    });
    if (decision.decision !== 'approve') {
      bus.publish(
        statusEvent(context, {
          state: 'TASK_STATE_REJECTED',
          parts: [
            {
              text: `Invoice ${invoice} was not paid${decision.instructions === undefined ? '' : `: ${decision.instructions}`}.`,
            },
          ],
        }),
      );
      return Promise.resolve();
    }
    bus.publish(statusEvent(context, { state: 'TASK_STATE_WORKING' }));
    payments.push({
      taskId: context.taskId,
      invoice,
      amount,
      messageId: context.userMessage.messageId,
      at: Date.now(),
    });
    bus.publish(
      artifactEvent(context, {
        artifactId: `${context.taskId}-result`,
        name: 'result',
        parts: [
          {
            text: `Paid invoice ${invoice} (${amount}) to ${payee}; payment reference PAY-${payments.length}.`,
          },
        ],
      }),
    );
    bus.publish(statusEvent(context, { state: 'TASK_STATE_COMPLETED' }));
    return Promise.resolve();
  }

  return {
    payments,
    decisions,
    execute,
    cancelTask(taskId, bus) {
      bus.publish(statusEvent({ taskId, contextId: '' }, { state: 'TASK_STATE_CANCELED' }));
      return Promise.resolve();
    },
  };
}
