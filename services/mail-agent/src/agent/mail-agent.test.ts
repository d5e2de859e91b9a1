import { describe, expect, it } from '@jest/globals';
import { createMessage, dataPart, textPart, type Task } from '@fleet/a2a';
import type { AgentContext, AgentEvent } from '@fleet/a2a/server';
import { createActionChooser, type ActionChooser } from '../actions';
import type { ComposedMail, FullMessage, MailSender, Mailbox } from '../mail';
import { testAccount } from '../test-support/boot-mail-agent';
import { createMailAgent } from './mail-agent';
import type { PendingMail } from './result-data';

const NOW = new Date('2026-03-10T12:00:00Z');
const account = testAccount({ imapPort: undefined, smtpPort: 2525 });

function recordingSender(): MailSender & { sent: ComposedMail[] } {
  const sent: ComposedMail[] = [];
  return {
    sent,
    send: (mail) => {
      sent.push(mail);
      return Promise.resolve({
        messageId: mail.messageId,
        accepted: mail.envelope.to,
        rejected: [],
        response: '250 OK',
      });
    },
  };
}

const pending: PendingMail = {
  action: 'send',
  mail: {
    from: account.from,
    to: ['bob@example.test'],
    cc: [],
    subject: 'Deploy',
    text: 'The deploy is done.',
    references: [],
  },
  task: 'send bob@example.test a mail about the deploy saying The deploy is done.',
  expiresAt: new Date(NOW.getTime() + 60_000).toISOString(),
};

/** A continuation of a task waiting for approval of `pending`. */
function continuation(
  decision: Record<string, unknown> | undefined,
  { claimed = false }: { claimed?: boolean } = {},
): AgentContext {
  const first = createMessage({ parts: [textPart(pending.task)], taskId: 't1', contextId: 'c1' });
  const asked = createMessage({
    role: 'ROLE_AGENT',
    parts: [
      textPart('Approval needed'),
      dataPart({ approval: { action: 'send-mail' } }),
      dataPart({ pendingMail: pending }),
    ],
    taskId: 't1',
    contextId: 'c1',
  });
  const message = createMessage({
    parts: decision === undefined ? [textPart('go')] : [dataPart({ approvalDecision: decision })],
    taskId: 't1',
    contextId: 'c1',
  });
  const task: Task = {
    id: 't1',
    contextId: 'c1',
    status: { state: 'TASK_STATE_WORKING', timestamp: NOW.toISOString() },
    history: [first, asked, message],
  };
  return {
    taskId: 't1',
    contextId: 'c1',
    message,
    task,
    isContinuation: true,
    signal: new AbortController().signal,
    claimOnce: () => Promise.resolve(!claimed),
  };
}

async function run(
  context: AgentContext,
  { sender, now = NOW }: { sender: MailSender; now?: Date },
): Promise<AgentEvent[]> {
  const execute = createMailAgent({
    account,
    mailbox: undefined,
    sender,
    chooser: createActionChooser({ llm: undefined, from: account.from }),
    llm: undefined,
    now: () => now,
  });
  const events: AgentEvent[] = [];
  for await (const event of execute(context)) events.push(event);
  return events;
}

function last(events: AgentEvent[]): AgentEvent | undefined {
  return events.at(-1);
}

describe('createMailAgent approvals', () => {
  it('sends the approved mail, exactly as it was shown', async () => {
    const sender = recordingSender();
    const events = await run(continuation({ decision: 'approve' }), { sender });
    expect(last(events)).toMatchObject({ type: 'status', state: 'TASK_STATE_COMPLETED' });
    expect(sender.sent).toHaveLength(1);
    const raw = sender.sent[0]?.raw.toString('utf8') ?? '';
    expect(raw).toContain('Subject: Deploy');
    expect(raw).toContain('The deploy is done.');
  });

  it('does not send again when an earlier turn already claimed the send', async () => {
    const sender = recordingSender();
    const events = await run(continuation({ decision: 'approve' }, { claimed: true }), { sender });
    expect(sender.sent).toHaveLength(0);
    const artifact = events.find((event) => event.type === 'artifact');
    expect(artifact).toMatchObject({
      artifact: {
        parts: [
          { text: expect.stringContaining('it was not sent again') },
          { data: { sent: false } },
        ],
      },
    });
    expect(last(events)).toMatchObject({ state: 'TASK_STATE_COMPLETED' });
  });

  it('rejects a denied mail and sends nothing', async () => {
    const sender = recordingSender();
    const events = await run(continuation({ decision: 'deny' }), { sender });
    expect(sender.sent).toHaveLength(0);
    expect(last(events)).toMatchObject({ state: 'TASK_STATE_REJECTED' });
  });

  it('rejects an approval that arrives after it expired', async () => {
    const sender = recordingSender();
    const events = await run(continuation({ decision: 'approve' }), {
      sender,
      now: new Date(NOW.getTime() + 120_000),
    });
    expect(sender.sent).toHaveLength(0);
    expect(last(events)).toMatchObject({
      state: 'TASK_STATE_REJECTED',
      message: [{ text: expect.stringContaining('expired') }, expect.anything()],
    });
  });

  it('asks again when the approver changes the mail', async () => {
    const sender = recordingSender();
    const events = await run(
      continuation({
        decision: 'approve',
        instructions: 'say it went well',
        mode: 'override',
        effectiveTask: 'send bob@example.test a mail about the deploy saying The deploy went well.',
      }),
      { sender },
    );
    expect(sender.sent).toHaveLength(0);
    const asked = last(events);
    expect(asked).toMatchObject({ type: 'status', state: 'TASK_STATE_AUTH_REQUIRED' });
    expect(JSON.stringify(asked)).toContain('The deploy went well.');
  });

  it('rejects a continuation without a decision', async () => {
    const sender = recordingSender();
    const events = await run(continuation(undefined), { sender });
    expect(sender.sent).toHaveLength(0);
    expect(last(events)).toMatchObject({ state: 'TASK_STATE_REJECTED' });
  });
});

/** A mailbox holding one message from carol, to alice and dave. */
function oneMessageMailbox(): Mailbox {
  const message: FullMessage = {
    folder: 'inbox',
    mailbox: 'INBOX',
    uid: 7,
    messageId: '<offsite@example.test>',
    from: 'Carol <carol@example.test>',
    to: ['Alice Example <alice@example.test>', 'dave@example.test'],
    cc: ['erin@example.test'],
    subject: 'Offsite',
    date: NOW.toISOString(),
    snippet: 'Can you join?',
    text: 'Can you join?',
    replyTo: 'Carol <carol@example.test>',
    references: [],
  };
  return {
    search: ({ folder }) =>
      Promise.resolve({ folder, mailbox: 'INBOX', total: 1, messages: [message] }),
    read: () => Promise.resolve(message),
    saveDraft: () => Promise.reject(new Error('not used')),
    saveSent: () => Promise.reject(new Error('not used')),
  };
}

async function ask(
  task: string,
  chooser: ActionChooser = createActionChooser({ llm: undefined, from: account.from }),
): Promise<AgentEvent[]> {
  const execute = createMailAgent({
    account,
    mailbox: oneMessageMailbox(),
    sender: recordingSender(),
    chooser,
    llm: undefined,
    now: () => NOW,
  });
  const message = createMessage({ parts: [textPart(task)] });
  const events: AgentEvent[] = [];
  const context: AgentContext = {
    taskId: 't2',
    contextId: 'c2',
    message,
    task: {
      id: 't2',
      contextId: 'c2',
      status: { state: 'TASK_STATE_WORKING', timestamp: NOW.toISOString() },
      history: [message],
    },
    isContinuation: false,
    signal: new AbortController().signal,
    claimOnce: () => Promise.resolve(true),
  };
  for await (const event of execute(context)) events.push(event);
  return events;
}

describe('createMailAgent replies and recipients', () => {
  it('replies to all other recipients but not to the sender herself', async () => {
    const events = await ask('Reply all to the latest mail from carol saying Yes!');
    const pendingPart = JSON.stringify(last(events));
    expect(last(events)).toMatchObject({ state: 'TASK_STATE_AUTH_REQUIRED' });
    expect(pendingPart).toContain(
      'To: Carol <carol@example.test>\\nCc: dave@example.test, erin@example.test\\nSubject: Re: Offsite',
    );
    expect(pendingPart).not.toContain('Cc: Alice');
  });

  it('refuses recipients that are not addresses', async () => {
    // As a model might answer: a name where the address should be.
    const events = await ask('Mail the numbers to my manager', {
      choose: () =>
        Promise.resolve({
          action: {
            action: 'send',
            folder: 'inbox',
            to: ['my manager'],
            cc: [],
            mailSubject: 'Numbers',
            body: 'Here they are.',
          },
          chosenBy: 'llm',
        }),
    });
    expect(last(events)).toMatchObject({
      state: 'TASK_STATE_FAILED',
      message: [{ text: expect.stringContaining('Not an e-mail address') }, expect.anything()],
    });
  });
});
