import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import OpenAI from 'openai';
import request from 'supertest';
import {
  approvalRequestSchema,
  createMessage,
  dataPart,
  RESULT_ARTIFACT_NAME,
  textPart,
  type ApprovalRequest,
  type Part,
  type Task,
} from '@fleet/a2a';
import { errorDataSchema } from '@fleet/agent-kit';
import { startScriptedOpenAI, type ScriptedOpenAI } from '@fleet/testing';
import {
  draftResultDataSchema,
  pendingMailSchema,
  readResultDataSchema,
  searchResultDataSchema,
  sendResultDataSchema,
} from './agent';
import { MAILBOX_HINT } from './config';
import {
  bootMailAgent,
  testAccount,
  TEST_TOKEN,
  type RunningMailAgent,
} from './test-support/boot-mail-agent';
import {
  listMailbox,
  seedMailbox,
  startDovecot,
  startRecordingSmtp,
  type RecordingSmtp,
  type RunningDovecot,
} from './test-support';

const SLOW = 60_000;
const REDIS_URL = 'redis://127.0.0.1:6379';
const USER = 'alice@example.test';
const PASSWORD = 'alice-secret';
const CAROL_ID = '<offsite-2026@example.test>';

function resultOf(task: Task): { text: string; data: unknown } {
  const artifact = task.artifacts?.find((entry) => entry.name === RESULT_ARTIFACT_NAME);
  return {
    text: artifact?.parts.find((part) => part.text !== undefined)?.text ?? '',
    data: artifact?.parts.find((part) => part.data !== undefined)?.data,
  };
}

function statusText(task: Task): string {
  return task.status.message?.parts.find((part) => part.text !== undefined)?.text ?? '';
}

function statusData(task: Task): unknown[] {
  return (task.status.message?.parts ?? []).flatMap((part) =>
    part.data === undefined ? [] : [part.data],
  );
}

/** The `{ approval }` request of a task waiting for approval. */
function approvalOf(task: Task): ApprovalRequest | undefined {
  return statusData(task)
    .map((data) => approvalRequestSchema.safeParse(data))
    .find((parsed) => parsed.success)?.data?.approval;
}

function nodeParts(task: string, dependencyOutputs: Record<string, unknown> = {}): Part[] {
  return [
    textPart(task),
    dataPart({
      fleet: { sessionId: 'session-1', nodeId: 'mail', tenant: 'acme', dependencyOutputs },
    }),
  ];
}

async function send(agent: RunningMailAgent, parts: Part[]): Promise<Task> {
  return (await agent.client.sendMessage({ message: createMessage({ parts }) })) as Task;
}

async function decide(
  agent: RunningMailAgent,
  taskId: string,
  decision: Record<string, unknown>,
): Promise<Task> {
  return (await agent.client.sendMessage({
    message: createMessage({ taskId, parts: [dataPart({ approvalDecision: decision })] }),
  })) as Task;
}

function header(raw: string, name: string): string | undefined {
  const unfolded = raw.split(/\r?\n\r?\n/)[0]?.replace(/\r?\n[ \t]+/g, ' ') ?? '';
  const line = unfolded
    .split(/\r?\n/)
    .find((entry) => entry.toLowerCase().startsWith(`${name.toLowerCase()}:`));
  return line?.slice(name.length + 1).trim();
}

describe('mail-agent service', () => {
  let redis: Redis;
  let dovecot: RunningDovecot;
  let smtp: RecordingSmtp;
  let llm: ScriptedOpenAI;
  let offline: RunningMailAgent;
  const prefix = `test:mail-agent:${randomUUID()}`;
  const agents: RunningMailAgent[] = [];

  function storedIn(mailbox: string) {
    return listMailbox({ ...dovecot, user: USER, password: PASSWORD, mailbox });
  }

  async function boot(options: Omit<Parameters<typeof bootMailAgent>[0], 'redis' | 'keyPrefix'>) {
    const agent = await bootMailAgent({
      redis,
      keyPrefix: `${prefix}:${agents.length}`,
      ...options,
    });
    agents.push(agent);
    return agent;
  }

  beforeAll(async () => {
    redis = new Redis(REDIS_URL);
    [dovecot, smtp, llm] = await Promise.all([
      startDovecot({ users: [{ user: USER, password: PASSWORD }] }),
      startRecordingSmtp({ user: USER, password: PASSWORD }),
      startScriptedOpenAI({}),
    ]);
    const day = (n: number) => new Date(Date.UTC(2026, 2, n, 9, 0, 0));
    await seedMailbox({
      host: dovecot.host,
      port: dovecot.port,
      user: USER,
      password: PASSWORD,
      messages: [
        {
          from: 'Bob Builder <bob@example.test>',
          to: [USER],
          subject: 'Invoice 4711',
          text: 'Hi Alice,\n\nplease find invoice 4711 for 1200 EUR attached. Payment is due on 31 March.\n\nBob',
          date: day(2),
        },
        {
          from: 'Bob Builder <bob@example.test>',
          to: [USER],
          subject: 'Lunch on Friday?',
          text: 'Shall we have lunch on Friday?',
          date: day(3),
        },
        {
          from: 'Carol Chair <carol@example.test>',
          to: [USER],
          cc: ['dave@example.test'],
          subject: 'Team offsite',
          text: 'The offsite is on 12 April in Lisbon. Can you join?',
          messageId: CAROL_ID,
          references: ['<planning-1@example.test>'],
          date: day(4),
        },
        {
          mailbox: 'Sent',
          from: `Alice <${USER}>`,
          to: ['erin@example.test'],
          subject: 'Quarterly numbers',
          text: 'Erin, the quarterly numbers are attached.',
          date: day(1),
          flags: ['\\Seen'],
        },
      ],
    });
    offline = await boot({
      account: testAccount({ imapPort: dovecot.port, smtpPort: smtp.port }),
    });
  }, SLOW);

  afterAll(async () => {
    for (const agent of agents) await agent.close();
    await smtp?.close();
    await dovecot?.stop();
    await llm?.close();
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  }, SLOW);

  describe('card and HTTP', () => {
    it('serves its Agent Card with the mail skills, and refuses calls without the token', async () => {
      const response = await request(offline.server.url).get('/.well-known/agent-card.json');
      expect(response.status).toBe(200);
      const body = response.body as {
        name: string;
        skills: { id: string; tags: string[]; examples: string[] }[];
        capabilities: { streaming: boolean };
      };
      expect(body.name).toBe('mail-agent');
      expect(body.capabilities.streaming).toBe(true);
      expect(body.skills.map((skill) => skill.id)).toEqual([
        'search',
        'send',
        'reply',
        'draft',
        'read',
      ]);
      for (const skill of body.skills) {
        expect(skill.tags).toContain('email');
        expect(skill.examples.length).toBeGreaterThan(0);
      }
      const refused = await request(offline.server.url)
        .post('/a2a')
        .set('A2A-Version', '1.0')
        .send({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x' } });
      expect(refused.status).toBe(401);
      const withToken = await request(offline.server.url)
        .post('/a2a')
        .set('A2A-Version', '1.0')
        .set('Authorization', `Bearer ${TEST_TOKEN}`)
        .send({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x' } });
      expect(withToken.status).toBe(200);
    });
  });

  describe('offline (rules)', () => {
    it('searches the inbox server-side and lists the matches with [n] sources', async () => {
      const task = await send(offline, nodeParts('Find the mails from bob about the invoice'));
      expect(task.status.state).toBe('TASK_STATE_COMPLETED');
      const { text, data } = resultOf(task);
      const parsed = searchResultDataSchema.parse(data);
      expect(parsed).toMatchObject({
        action: 'search',
        folder: 'inbox',
        mailbox: 'INBOX',
        criteria: { from: 'bob', text: 'invoice' },
        total: 1,
        chosenBy: 'rules',
        summarisedBy: 'list',
      });
      expect(parsed.messages.map((message) => message.subject)).toEqual(['Invoice 4711']);
      expect(parsed.messages[0]?.snippet).toContain('1200 EUR');
      expect(parsed.sources[0]?.title).toContain('Invoice 4711');
      expect(text).toContain('[1]');
      expect(text).not.toContain('Lunch');
    });

    it('searches sent mail', async () => {
      const task = await send(offline, nodeParts('What did I send to erin?'));
      const parsed = searchResultDataSchema.parse(resultOf(task).data);
      expect(parsed.folder).toBe('sent');
      expect(parsed.mailbox).toBe('Sent');
      expect(parsed.messages.map((message) => message.subject)).toEqual(['Quarterly numbers']);
    });

    it('reports an empty search plainly', async () => {
      const task = await send(offline, nodeParts('search mails from zoe@nowhere.test'));
      expect(task.status.state).toBe('TASK_STATE_COMPLETED');
      expect(searchResultDataSchema.parse(resultOf(task).data).total).toBe(0);
      expect(resultOf(task).text).toMatch(/^No message in INBOX matches/);
    });

    it('reads the newest matching message in full', async () => {
      const task = await send(offline, nodeParts('Read the latest mail from carol'));
      expect(task.status.state).toBe('TASK_STATE_COMPLETED');
      const parsed = readResultDataSchema.parse(resultOf(task).data);
      expect(parsed.message).toMatchObject({
        subject: 'Team offsite',
        messageId: CAROL_ID,
        cc: ['dave@example.test'],
      });
      expect(parsed.message.text).toContain('12 April in Lisbon');
      expect(resultOf(task).text).toContain('From: Carol Chair <carol@example.test>');
    });

    it('saves a draft in Drafts and sends nothing', async () => {
      const before = smtp.mails.length;
      const task = await send(
        offline,
        nodeParts(
          'Draft a mail to dave@example.test about the offsite agenda saying Let us plan the agenda on Monday.',
        ),
      );
      expect(task.status.state).toBe('TASK_STATE_COMPLETED');
      const parsed = draftResultDataSchema.parse(resultOf(task).data);
      expect(parsed.mail).toMatchObject({
        to: ['dave@example.test'],
        subject: 'The offsite agenda',
        text: 'Let us plan the agenda on Monday.',
      });
      expect(parsed.mailbox).toBe('Drafts');
      const drafts = await storedIn('Drafts');
      expect(drafts).toHaveLength(1);
      expect(drafts[0]?.flags).toEqual(expect.arrayContaining(['\\Draft']));
      expect(header(drafts[0]?.raw ?? '', 'Message-ID')).toBe(parsed.messageId);
      expect(smtp.mails.length).toBe(before);
    });

    it('asks for approval with the full mail; a denied send sends nothing', async () => {
      const before = smtp.mails.length;
      const asked = await send(
        offline,
        nodeParts(
          'Send bob@example.test a mail about the invoice, cc carol@example.test, saying Paid today.',
        ),
      );
      expect(asked.status.state).toBe('TASK_STATE_AUTH_REQUIRED');
      const approval = approvalOf(asked);
      expect(approval).toMatchObject({ action: 'send-mail', risk: 'high' });
      expect(approval?.preview).toBe(
        'From: Alice Example <alice@example.test>\nTo: bob@example.test\nCc: carol@example.test\nSubject: The invoice\n\nPaid today.',
      );
      expect(smtp.mails.length).toBe(before);

      const denied = await decide(offline, asked.id, {
        decision: 'deny',
        instructions: 'not now',
      });
      expect(denied.status.state).toBe('TASK_STATE_REJECTED');
      expect(statusText(denied)).toBe('Denied: not now. The mail was not sent.');
      expect(smtp.mails.length).toBe(before);
    });

    it('sends an approved mail exactly once and files a copy in Sent', async () => {
      const before = smtp.mails.length;
      const asked = await send(
        offline,
        nodeParts('Email the summary to boss@example.test', {
          report: { agent: 'rag-agent', summary: 'Revenue grew 12% in Q1 [1].' },
        }),
      );
      expect(asked.status.state).toBe('TASK_STATE_AUTH_REQUIRED');
      const pending = statusData(asked)
        .map((data) => pendingMailSchema.safeParse(data))
        .find((parsed) => parsed.success)?.data?.pendingMail;
      expect(pending?.mail).toMatchObject({
        to: ['boss@example.test'],
        text: 'Revenue grew 12% in Q1 [1].',
      });

      const approved = await decide(offline, asked.id, { decision: 'approve' });
      expect(approved.status.state).toBe('TASK_STATE_COMPLETED');
      const data = sendResultDataSchema.parse(resultOf(approved).data);
      expect(data).toMatchObject({ action: 'send', sent: true, accepted: ['boss@example.test'] });
      expect(data.savedTo?.mailbox).toBe('Sent');

      await smtp.waitForMails(before + 1);
      const mail = smtp.mails[before];
      expect(mail).toMatchObject({
        from: USER,
        to: ['boss@example.test'],
        user: USER,
        method: 'PLAIN',
      });
      expect(header(mail?.raw ?? '', 'Message-ID')).toBe(data.messageId);
      expect(mail?.raw).toContain('Revenue grew 12% in Q1 [1].');

      // The approval arrives again: the task is over, nothing more is sent.
      await expect(decide(offline, asked.id, { decision: 'approve' })).rejects.toThrow(
        /TASK_STATE_COMPLETED/,
      );
      const sent = await storedIn('Sent');
      expect(sent.filter((entry) => entry.raw.includes(data.messageId ?? '-'))).toHaveLength(1);
      expect(smtp.mails.length).toBe(before + 1);
    });

    it('replies in the thread with In-Reply-To and References once approved', async () => {
      const before = smtp.mails.length;
      const asked = await send(
        offline,
        nodeParts('Reply to the latest mail from carol saying Count me in!'),
      );
      expect(asked.status.state).toBe('TASK_STATE_AUTH_REQUIRED');
      const approval = approvalOf(asked);
      expect(approval?.action).toBe('reply-mail');
      expect(approval?.preview).toContain('To: Carol Chair <carol@example.test>');
      expect(approval?.preview).toContain('Subject: Re: Team offsite');
      expect(approval?.preview).toContain(`In-Reply-To: ${CAROL_ID}`);
      expect(smtp.mails.length).toBe(before);

      const approved = await decide(offline, asked.id, { decision: 'approve' });
      expect(approved.status.state).toBe('TASK_STATE_COMPLETED');
      await smtp.waitForMails(before + 1);
      const mail = smtp.mails[before];
      expect(mail?.to).toEqual(['carol@example.test']);
      expect(header(mail?.raw ?? '', 'In-Reply-To')).toBe(CAROL_ID);
      expect(header(mail?.raw ?? '', 'References')).toBe(`<planning-1@example.test> ${CAROL_ID}`);
      expect(header(mail?.raw ?? '', 'Subject')).toBe('Re: Team offsite');
      expect(smtp.mails.length).toBe(before + 1);
    });

    it('fails a send without a body, saying what is missing', async () => {
      const task = await send(offline, nodeParts('Send a mail to bob@example.test'));
      expect(task.status.state).toBe('TASK_STATE_FAILED');
      expect(statusText(task)).toContain('does not say what the mail should say');
      expect(errorDataSchema.parse(statusData(task)[0]).error.code).toBe('VALIDATION_FAILED');
    });
  });

  describe('configuration', () => {
    it('fails tasks with how to configure a mailbox when none is', async () => {
      const agent = await boot({ account: undefined });
      const task = await send(agent, nodeParts('find mails from bob'));
      expect(task.status.state).toBe('TASK_STATE_FAILED');
      expect(statusText(task)).toBe(MAILBOX_HINT);
    });

    it('logs in with XOAUTH2 over IMAP and SMTP', async () => {
      const agent = await boot({
        account: testAccount({ imapPort: dovecot.port, smtpPort: smtp.port, oauth2: true }),
      });
      const found = await send(agent, nodeParts('find mails from carol'));
      expect(searchResultDataSchema.parse(resultOf(found).data).total).toBe(1);
      const before = smtp.mails.length;
      const asked = await send(agent, nodeParts('send erin@example.test a mail saying hello'));
      await decide(agent, asked.id, { decision: 'approve' });
      await smtp.waitForMails(before + 1);
      expect(smtp.mails[before]).toMatchObject({ method: 'XOAUTH2', user: USER });
    });

    it('fails with a clear message when the IMAP login is refused', async () => {
      const agent = await boot({
        account: testAccount({ imapPort: dovecot.port, smtpPort: smtp.port, password: 'wrong' }),
      });
      const task = await send(agent, nodeParts('find mails from bob'));
      expect(task.status.state).toBe('TASK_STATE_FAILED');
      expect(statusText(task)).toMatch(/IMAP server 127\.0\.0\.1:\d+ refused the login/);
    });
  });

  describe('online (LLM)', () => {
    let online: RunningMailAgent;

    beforeAll(async () => {
      const client = new OpenAI({ apiKey: 'sk-test', baseURL: llm.baseURL, maxRetries: 0 });
      online = await boot({
        account: testAccount({ imapPort: dovecot.port, smtpPort: smtp.port }),
        llm: { client, model: 'mail-model' },
      });
    });

    it('chooses the action with structured output and summarises with the LLM', async () => {
      llm.enqueue(
        {
          json: {
            action: 'search',
            folder: 'inbox',
            from: 'bob@example.test',
            toContains: null,
            subject: 'invoice',
            text: null,
            since: null,
            before: null,
            unseen: null,
            uid: null,
            to: [],
            cc: [],
            mailSubject: null,
            body: null,
            replyAll: null,
          },
        },
        { content: 'Bob sent invoice 4711 for 1200 EUR, due 31 March [1].' },
      );
      const before = llm.requests.length;
      const task = await send(online, nodeParts('Is there an unpaid invoice from Bob?'));
      expect(task.status.state).toBe('TASK_STATE_COMPLETED');
      const parsed = searchResultDataSchema.parse(resultOf(task).data);
      expect(parsed).toMatchObject({ chosenBy: 'llm', summarisedBy: 'llm', total: 1 });
      expect(resultOf(task).text).toBe('Bob sent invoice 4711 for 1200 EUR, due 31 March [1].');
      const [choice, summary] = llm.requests.slice(before);
      expect(JSON.stringify(choice?.body)).toContain('mail_action');
      expect(JSON.stringify(summary?.body)).toContain('Invoice 4711');
    });

    it('streams the summary as result chunks while the model writes it', async () => {
      const summary = 'Bob sent invoice 4711 for 1200 EUR [1], due 31 March.';
      llm.enqueue(
        {
          json: {
            action: 'search',
            folder: 'inbox',
            from: 'bob@example.test',
            toContains: null,
            subject: 'invoice',
            text: null,
            since: null,
            before: null,
            unseen: null,
            uid: null,
            to: [],
            cc: [],
            mailSubject: null,
            body: null,
            replyAll: null,
          },
        },
        { content: `  ${summary}\n`, chunkSize: 5, chunkDelayMs: 20 },
      );
      const updates: { append: boolean; last: boolean; text: string; modelDone: boolean }[] = [];
      for await (const event of online.client.sendStreamingMessage({
        message: createMessage({ parts: nodeParts('Is there an unpaid invoice from Bob?') }),
      })) {
        if (!('artifactUpdate' in event)) continue;
        const { artifact, append, lastChunk } = event.artifactUpdate;
        updates.push({
          append: append === true,
          last: lastChunk === true,
          text: artifact.parts[0]?.text ?? '',
          modelDone: llm.requests.at(-1)?.status !== undefined,
        });
      }
      const pieces = updates.filter((update) => update.append);
      expect(pieces.length).toBeGreaterThan(3);
      expect(pieces[0]?.modelDone).toBe(false);
      expect(pieces.map((piece) => piece.text).join('')).toBe(summary);
      expect(updates.at(-1)).toMatchObject({ append: false, last: true, text: summary });
    });

    it('sends the mail the LLM wrote from earlier results, once approved', async () => {
      const body = 'Hi Boss,\n\nrevenue grew 12% in Q1.\n\nBest,\nAlice';
      llm.enqueue({
        json: {
          action: 'send',
          folder: 'inbox',
          from: null,
          toContains: null,
          subject: null,
          text: null,
          since: null,
          before: null,
          unseen: null,
          uid: null,
          to: ['boss@example.test'],
          cc: [],
          mailSubject: 'Q1 revenue',
          body,
          replyAll: null,
        },
      });
      const before = smtp.mails.length;
      const requestsBefore = llm.requests.length;
      const asked = await send(
        online,
        nodeParts('Mail the revenue figures to my boss (boss@example.test)', {
          numbers: { agent: 'rag-agent', summary: 'Revenue grew 12% in Q1 [1].' },
        }),
      );
      expect(asked.status.state).toBe('TASK_STATE_AUTH_REQUIRED');
      expect(JSON.stringify(llm.requests[requestsBefore]?.body)).toContain(
        'Revenue grew 12% in Q1',
      );
      const approval = approvalOf(asked);
      expect(approval?.preview).toBe(
        `From: Alice Example <alice@example.test>\nTo: boss@example.test\nCc: (none)\nSubject: Q1 revenue\n\n${body}`,
      );
      expect(smtp.mails.length).toBe(before);
      const approved = await decide(online, asked.id, { decision: 'approve' });
      expect(approved.status.state).toBe('TASK_STATE_COMPLETED');
      await smtp.waitForMails(before + 1);
      expect(header(smtp.mails[before]?.raw ?? '', 'Subject')).toBe('Q1 revenue');
      expect(smtp.mails.length).toBe(before + 1);
    });

    it('fails a search whose date is not a date, saying so', async () => {
      llm.enqueue({
        json: {
          action: 'search',
          folder: 'inbox',
          from: null,
          toContains: null,
          subject: null,
          text: null,
          since: 'last tuesday',
          before: null,
          unseen: null,
          uid: null,
          to: [],
          cc: [],
          mailSubject: null,
          body: null,
          replyAll: null,
        },
      });
      const task = await send(online, nodeParts('mails since last tuesday'));
      expect(task.status.state).toBe('TASK_STATE_FAILED');
      expect(statusText(task)).toBe(
        'The search date since "last tuesday" is not a date (YYYY-MM-DD).',
      );
    });

    it('falls back to the rules when the LLM fails', async () => {
      llm.enqueue(
        { error: { status: 500, message: 'upstream down' } },
        { error: { status: 500, message: 'upstream down' } },
      );
      const task = await send(online, nodeParts('find mails from carol'));
      expect(task.status.state).toBe('TASK_STATE_COMPLETED');
      const parsed = searchResultDataSchema.parse(resultOf(task).data);
      expect(parsed.chosenBy).toBe('rules');
      expect(parsed.llmError).toBeDefined();
      expect(parsed.summarisedBy).toBe('list');
      expect(parsed.messages[0]?.subject).toBe('Team offsite');
    });
  });
});
