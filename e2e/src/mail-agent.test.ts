/**
 * The real mail agent in a running fleet: gateway, orchestrator, planner and the mail agent
 * (`services/mail-agent`) as their own processes, a dovecot IMAP server of its own holding a
 * seeded mailbox, and an SMTP server that records what it receives. A plan searches the inbox and
 * mails the findings: the send waits for a person; an approved send reaches the SMTP server
 * exactly once (even when the agent is killed while it waits and the approval is posted twice), a
 * denied one sends nothing; IMAP and SMTP actions show as TOOL spans below the agent's AGENT span.
 *
 * Needs `dovecot-imapd` (`apt-get install dovecot-imapd`) and the built mail agent
 * (`pnpm exec tsc -b services/mail-agent e2e`).
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import type { Plan } from '@fleet/a2a';
import {
  startOtlpCapture,
  startScriptedOpenAI,
  type OtlpCapture,
  type ScriptedOpenAI,
} from '@fleet/testing';
import { gatewayApi, runUntilApproval, waitForSession } from './support/gateway-api';
import { startFleet, type RunningFleet } from './support/start-fleet';
import { REPO_ROOT } from './support/start-gateway';

/** What this test uses of the mail agent's test support (services/mail-agent/src/test-support). */
interface MailTestSupport {
  startDovecot(options: { users: { user: string; password: string }[] }): Promise<{
    host: string;
    port: number;
    stop(): Promise<void>;
  }>;
  startRecordingSmtp(options: { user: string; password: string }): Promise<{
    port: number;
    mails: { from: string; to: string[]; raw: string; user: string }[];
    waitForMails(count: number, timeoutMs?: number): Promise<unknown[]>;
    close(): Promise<void>;
  }>;
  seedMailbox(options: {
    host: string;
    port: number;
    user: string;
    password: string;
    messages: { from: string; to: string[]; subject: string; text: string; date: Date }[];
  }): Promise<void>;
}

const USER = 'alice@example.test';
const PASSWORD = 'alice-secret';
const FIND_TASK = 'Find the mails from bob about the invoice';
const SEND_TASK = 'Email the findings to boss@example.test, cc carol@example.test';

let nextPlan: Plan | undefined;

function plan(nodes: { id: string; agent: string; task: string; dependsOn?: string[] }[]): Plan {
  return {
    nodes: nodes.map((node) => ({ dependsOn: [], ...node })),
    rationale: 'scripted plan',
    confidence: 0.9,
  };
}

/** The mail agent's test support, compiled (it is not a dependency of the e2e package). */
function loadMailTestSupport(): MailTestSupport {
  const load = createRequire(__filename);
  const entry = path.join(REPO_ROOT, 'services/mail-agent/dist/test-support/index.js');
  try {
    return load(entry) as MailTestSupport;
  } catch (error) {
    throw new Error(
      `cannot load ${entry}: build the mail agent first (pnpm exec tsc -b services/mail-agent e2e). ${String(error)}`,
    );
  }
}

function header(raw: string, name: string): string | undefined {
  const head = (raw.split(/\r?\n\r?\n/)[0] ?? '').replace(/\r?\n[ \t]+/g, ' ');
  const line = head
    .split(/\r?\n/)
    .find((entry) => entry.toLowerCase().startsWith(`${name.toLowerCase()}:`));
  return line?.slice(name.length + 1).trim();
}

describe('mail agent in the fleet', () => {
  let support: MailTestSupport;
  let dovecot: Awaited<ReturnType<MailTestSupport['startDovecot']>>;
  let smtp: Awaited<ReturnType<MailTestSupport['startRecordingSmtp']>>;
  let llm: ScriptedOpenAI;
  let otlp: OtlpCapture;
  let fleet: RunningFleet;
  let client: OpenAI;

  beforeAll(async () => {
    support = loadMailTestSupport();
    dovecot = await support.startDovecot({ users: [{ user: USER, password: PASSWORD }] });
    smtp = await support.startRecordingSmtp({ user: USER, password: PASSWORD });
    await support.seedMailbox({
      host: dovecot.host,
      port: dovecot.port,
      user: USER,
      password: PASSWORD,
      messages: [
        {
          from: 'Bob Builder <bob@example.test>',
          to: [USER],
          subject: 'Invoice 4711',
          text: 'Invoice 4711 over 1200 EUR is due on 31 March.',
          date: new Date(Date.UTC(2026, 2, 2, 9)),
        },
        {
          from: 'Bob Builder <bob@example.test>',
          to: [USER],
          subject: 'Lunch on Friday?',
          text: 'Shall we have lunch on Friday?',
          date: new Date(Date.UTC(2026, 2, 3, 9)),
        },
      ],
    });
    otlp = await startOtlpCapture();
    llm = await startScriptedOpenAI({
      respond: (_request, context) => {
        if (context.jsonSchema === undefined) return { content: 'Composed.' };
        if (context.lastUserMessage.includes('instructions'))
          return { json: { mode: 'enhance', effectiveTask: '' } };
        return nextPlan === undefined ? {} : { json: nextPlan };
      },
    });
    fleet = await startFleet({
      env: { OPENAI_BASE_URL: llm.baseURL, OPENAI_API_KEY: 'sk-e2e-upstream' },
      serviceEnv: { orchestrator: { HITL_TIMEOUT_SECONDS: '300' } },
      agents: [],
      agentServices: {
        'mail-agent': {
          // Offline: the mail agent chooses its actions with its rules.
          OPENAI_BASE_URL: undefined,
          OPENAI_API_KEY: undefined,
          MAIL_IMAP_HOST: '127.0.0.1',
          MAIL_IMAP_PORT: String(dovecot.port),
          MAIL_IMAP_SECURE: 'false',
          MAIL_SMTP_HOST: '127.0.0.1',
          MAIL_SMTP_PORT: String(smtp.port),
          MAIL_SMTP_SECURE: 'false',
          MAIL_USER: USER,
          MAIL_PASSWORD: PASSWORD,
          MAIL_FROM: `Alice Example <${USER}>`,
          OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
          OTEL_BSP_SCHEDULE_DELAY: '100',
        },
      },
    });
    client = new OpenAI({ apiKey: fleet.apiKey, baseURL: fleet.baseURL, maxRetries: 0 });
  }, 120_000);

  afterAll(async () => {
    await fleet?.stop();
    await llm?.close();
    await smtp?.close();
    await dovecot?.stop();
    await otlp?.close();
  }, 60_000);

  it('discovers the mail agent from its card', async () => {
    const card = (await (
      await fetch(`${fleet.services['mail-agent']!.url}/.well-known/agent-card.json`)
    ).json()) as { name: string; skills: { id: string }[] };
    expect(card.name).toBe('mail-agent');
    expect(card.skills.map((skill) => skill.id)).toEqual([
      'search',
      'send',
      'reply',
      'draft',
      'read',
    ]);
  });

  it('sends the approved mail exactly once, across an agent restart and a repeated approval', async () => {
    nextPlan = plan([
      { id: 'find', agent: 'mail-agent', task: FIND_TASK },
      { id: 'send', agent: 'mail-agent', task: SEND_TASK, dependsOn: ['find'] },
    ]);
    const before = smtp.mails.length;
    const { sessionId, asked, events } = await runUntilApproval(
      client,
      'find the invoice mails from bob and send them to my boss',
    );
    expect(
      events.find((event) => event.type === 'node-end' && event['nodeId'] === 'find'),
    ).toMatchObject({ state: 'completed' });
    expect(asked).toMatchObject({
      kind: 'node',
      nodeId: 'send',
      agent: 'mail-agent',
      action: 'send-mail',
      risk: 'high',
    });
    const preview = String(asked['preview']);
    expect(preview).toContain(`From: Alice Example <${USER}>`);
    expect(preview).toContain('To: boss@example.test');
    expect(preview).toContain('Cc: carol@example.test');
    expect(preview).toMatch(/\nSubject: .+\n/);
    expect(preview).toContain('Invoice 4711');
    expect(preview).not.toContain('Lunch on Friday');
    expect(smtp.mails.length).toBe(before);

    // The mail agent dies while the mail waits (no graceful shutdown): the mail waiting for
    // approval is in its Redis task store, so the restarted agent sends exactly that.
    // (Its spans so far are exported first: a SIGKILL drops whatever is still buffered.)
    await otlp.waitForSpans((received) => received.some((span) => span.name === 'imap.search'));
    await fleet.crashAndRestart('mail-agent');

    const approvalId = String(asked['approvalId']);
    const decided = await gatewayApi(fleet, `/sessions/${sessionId}/approvals/${approvalId}`, {
      method: 'POST',
      body: JSON.stringify({ decision: 'approve' }),
    });
    expect(decided.status).toBe(200);
    const again = await gatewayApi(fleet, `/sessions/${sessionId}/approvals/${approvalId}`, {
      method: 'POST',
      body: JSON.stringify({ decision: 'approve' }),
    });
    expect(again.status).toBe(409);

    const session = await waitForSession(
      fleet,
      sessionId,
      (body) => body['status'] === 'completed',
    );
    expect(session['nodes']['send']['state']).toBe('completed');
    await smtp.waitForMails(before + 1);
    const mail = smtp.mails[before]!;
    expect(mail.from).toBe(USER);
    expect(mail.to).toEqual(['boss@example.test', 'carol@example.test']);
    expect(mail.user).toBe(USER);
    expect(header(mail.raw, 'From')).toBe(`Alice Example <${USER}>`);
    expect(header(mail.raw, 'To')).toBe('boss@example.test');
    expect(header(mail.raw, 'Cc')).toBe('carol@example.test');
    expect(header(mail.raw, 'Message-ID')).toMatch(/^<[^@]+@example\.test>$/);
    expect(mail.raw).toContain('Invoice 4711');

    // Nothing more arrives: the approval was delivered once and the send claimed once.
    const resumed = await client.chat.completions.create(
      {
        model: 'fleet-orchestration',
        stream: true,
        messages: [{ role: 'user', content: 'resume' }],
      },
      { headers: { 'X-Session-ID': sessionId } },
    );
    for await (const chunk of resumed) void chunk;
    expect(smtp.mails.length).toBe(before + 1);

    // OpenInference: each turn is an AGENT span, each IMAP/SMTP action a TOOL span below it.
    // The turn's AGENT span ends after its TOOL spans, so it may come in a later export: wait for
    // the parent of smtp.send too.
    const spans = await otlp.waitForSpans((received) => {
      const sent = received.find((span) => span.name === 'smtp.send');
      return (
        ['imap.search', 'imap.append'].every((name) =>
          received.some((span) => span.name === name),
        ) &&
        sent !== undefined &&
        received.some((span) => span.spanId === sent.parentSpanId)
      );
    });
    const mailSpans = spans.filter((span) => span.serviceName === 'mail-agent');
    const kindOf = (name: string) =>
      mailSpans.find((span) => span.name === name)?.attributes['openinference.span.kind'];
    expect(kindOf('imap.search')).toBe('TOOL');
    expect(kindOf('smtp.send')).toBe('TOOL');
    expect(kindOf('imap.append')).toBe('TOOL');
    expect(mailSpans.filter((span) => span.name === 'smtp.send')).toHaveLength(1);
    const send = mailSpans.find((span) => span.name === 'smtp.send')!;
    expect(send.attributes['tool.name']).toBe('smtp.send');
    const parent = mailSpans.find((span) => span.spanId === send.parentSpanId);
    expect(parent?.attributes['openinference.span.kind']).toBe('AGENT');
  }, 90_000);

  it('sends nothing when the mail is denied', async () => {
    nextPlan = plan([
      {
        id: 'notify',
        agent: 'mail-agent',
        task: 'Send bob@example.test a mail about the invoice saying It is paid.',
      },
    ]);
    const before = smtp.mails.length;
    const { sessionId, asked } = await runUntilApproval(client, 'tell bob the invoice is paid');
    expect(String(asked['preview'])).toBe(
      `From: Alice Example <${USER}>\nTo: bob@example.test\nCc: (none)\nSubject: The invoice\n\nIt is paid.`,
    );
    const decided = await gatewayApi(
      fleet,
      `/sessions/${sessionId}/approvals/${String(asked['approvalId'])}`,
      { method: 'POST', body: JSON.stringify({ decision: 'deny', instructions: 'not yet' }) },
    );
    expect(decided.status).toBe(200);
    const session = await waitForSession(fleet, sessionId, (body) =>
      ['completed', 'failed'].includes(String(body['status'])),
    );
    expect(session['nodes']['notify']['state']).toBe('rejected');
    const approvals = await gatewayApi(fleet, `/sessions/${sessionId}/approvals`);
    expect(approvals.body['data']).toEqual([
      expect.objectContaining({ status: 'denied', agent: 'mail-agent', action: 'send-mail' }),
    ]);
    expect(smtp.mails.length).toBe(before);
  }, 90_000);
});
