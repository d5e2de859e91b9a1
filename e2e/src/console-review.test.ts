/**
 * The answer's review, added steps and agent steering in the web console, in Debian's Chromium
 * (playwright-core), against a stand-in for the gateway that serves the built console with the
 * gateway's Content-Security-Policy and the documented `/v1/sessions/{id}` (`reviews`,
 * `steering`, plan steps with `origin`) and `POST /v1/sessions/{id}/review`. Ask sends
 * `X-Result-Review: required` and `fleet_agents`; the session page shows the pending review with
 * each step's result, sends the decision the buttons and checkboxes say, shows errors inline, lists
 * earlier rounds, marks added steps (also one a live `node-added` brings) and shows a refused
 * hand-off in the progress log. Screenshots go to `e2e/output/console/`.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium, screenshot } from './support/browser';
import { startConsoleReviewStub, type ConsoleReviewStub } from './support/console-review-stub';

const KEY = 'sk-console-review-0123456789abcdef';
const SESSION_ID = 'sess-review-0001';
const CREATED = '2026-11-28T00:00:00.000Z';
const LATER = '2099-01-01T00:00:00.000Z';
const INJECTED = '<img src=x onerror="window.__injected = true">';

const PLAN = {
  nodes: [
    { id: 'find', agent: 'rag-agent', task: 'Find the report', dependsOn: [] },
    { id: 'send', agent: 'mail-agent', task: 'Send it to Bob', dependsOn: ['find'] },
    {
      id: 'check',
      agent: 'web-agent',
      task: 'Check the figures online',
      dependsOn: ['find'],
      origin: { kind: 'handoff', from: 'find' },
    },
  ],
  rationale: 'three steps',
  confidence: 0.9,
};

const STEPS = [
  { id: 'find', agent: 'rag-agent', state: 'completed', summary: `The weekly report ${INJECTED}` },
  { id: 'send', agent: 'mail-agent', state: 'completed', summary: 'Sent to Bob.' },
  { id: 'check', agent: 'web-agent', state: 'completed', summary: 'Figures match.', added: true },
];

function reviewRound(round: number, overrides: Record<string, unknown> = {}) {
  return {
    id: `rv-${round}`,
    round,
    status: 'pending',
    answer: `Answer of round ${round}: the weekly report went to Bob. ${INJECTED}`,
    steps: STEPS,
    createdAt: CREATED,
    expiresAt: LATER,
    ...overrides,
  };
}

const FIRST_ROUND = reviewRound(1, {
  status: 'denied',
  decision: 'revise',
  targets: ['find'],
  feedback: 'Use the monthly report.',
  rerun: ['find', 'check'],
  kept: ['send'],
  decidedAt: CREATED,
});

/** The session as the stand-in answers it; the review handler moves it on. */
const session = {
  id: SESSION_ID,
  status: 'waiting_approval',
  createdAt: CREATED,
  updatedAt: CREATED,
  request: 'Send the report to Bob',
  planApproval: false,
  resultReview: true,
  steering: { prefer: ['rag-agent'], exclude: ['web-agent', 'mail-agent/send-mail'] },
  plan: PLAN,
  nodes: {
    find: {
      agent: 'rag-agent',
      state: 'completed',
      attempts: 2,
      startedAt: CREATED,
      endedAt: CREATED,
      revision: { round: 1, feedback: 'Use the monthly report.' },
    },
    send: { agent: 'mail-agent', state: 'completed', attempts: 1, startedAt: CREATED },
    check: { agent: 'web-agent', state: 'completed', attempts: 1, startedAt: CREATED },
  },
  approvals: [],
  inputs: [],
  reviews: [FIRST_ROUND, reviewRound(2)],
  result: null,
  error: null,
};

function chunk(delta: Record<string, unknown>, fleet: Record<string, unknown>) {
  return {
    id: 'chatcmpl-review',
    object: 'chat.completion.chunk',
    created: 0,
    model: 'fleet-orchestration',
    choices: [{ index: 0, delta, finish_reason: null }],
    fleet: { sessionId: SESSION_ID, ...fleet },
  };
}

/** What a follow of the session streams: a step added live, a refused hand-off. */
const STREAM = [
  chunk(
    { reasoning_content: 'Step retry added to the plan, re-planned after step check failed.\n' },
    {
      type: 'node-added',
      node: {
        id: 'retry',
        agent: 'rag-agent',
        task: 'Look again',
        dependsOn: ['check'],
        origin: { kind: 'replan', from: 'check' },
      },
    },
  ),
  // No line of its own: the page writes one from the event.
  chunk(
    {},
    {
      type: 'handoff-refused',
      nodeId: 'send',
      agent: 'mail-agent',
      target: 'web-agent',
      reason: 'web-agent is left out',
    },
  ),
];

describe('result review in the web console (Chromium, a gateway stand-in)', () => {
  let stub: ConsoleReviewStub;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  /** The next decision's answer when the test wants a refusal. */
  let refuseNext: { status: number; message: string } | undefined;
  const problems: string[] = [];

  beforeAll(async () => {
    stub = await startConsoleReviewStub({
      key: KEY,
      sessions: { [SESSION_ID]: session },
      startSessionId: SESSION_ID,
      summaries: [
        {
          id: SESSION_ID,
          status: 'waiting_approval',
          createdAt: CREATED,
          updatedAt: CREATED,
          request: 'Send the report to Bob',
          pendingApprovals: 0,
          pendingInputs: 0,
          awaitingReview: true,
        },
      ],
      stream: STREAM,
      review: (_id, body) => {
        if (refuseNext !== undefined) {
          const { status, message } = refuseNext;
          refuseNext = undefined;
          return {
            status,
            json: { error: { message, type: 'conflict_error', param: null, code: 'conflict' } },
          };
        }
        // As the orchestrator would: the pending round is decided and, when sent back, a new
        // round waits.
        const decision = body as { decision: string; steps?: string[]; feedback?: string };
        const pending = session.reviews.at(-1) as ReturnType<typeof reviewRound>;
        const decided = {
          ...pending,
          status: decision.decision === 'approve' ? 'approved' : 'denied',
          decision: decision.decision,
          ...(decision.steps === undefined ? {} : { targets: decision.steps }),
          ...(decision.feedback === undefined ? {} : { feedback: decision.feedback }),
          decidedAt: new Date().toISOString(),
        };
        session.reviews = [
          ...session.reviews.slice(0, -1),
          decided,
          ...(decision.decision === 'approve' ? [] : [reviewRound(pending.round + 1)]),
        ];
        session.updatedAt = new Date().toISOString();
        return { status: 200, json: { review: decided } };
      },
    });
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('dialog', (dialog) => {
      problems.push(`dialog: ${dialog.message()}`);
      void dialog.dismiss();
    });

    await page.goto(`${stub.url}/console/`);
    await page.getByLabel('API key').fill(KEY);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Sessions' }).waitFor();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await stub?.close();
  });

  it('lists a session whose answer waits for review as waiting for you', async () => {
    const row = page.locator(`tr[data-session-id="${SESSION_ID}"]`);
    await expect(row.locator('td[data-label="Waiting for you"]').textContent()).resolves.toBe(
      'the answer, for review',
    );
    await page.getByText('1 waiting for you.').waitFor();
  });

  it('asks for a review and sends the steering from the Ask page', async () => {
    await page.goto(`${stub.url}/console/ask`);
    await page.getByLabel('Question').fill('Send the report to Bob');
    await page.getByRole('switch', { name: 'Review the answer before it is sent' }).check();
    await page.getByText('Agent steering (optional)').click();
    await page.getByLabel('Prefer these agents or skills').fill('rag-agent');
    await page
      .getByLabel('Leave out these agents or skills')
      .fill('web-agent, mail-agent/send-mail');
    await page.getByRole('button', { name: 'Ask' }).click();
    await page.waitForURL(`**/console/sessions/${SESSION_ID}`);
    const started = stub.runs.find((run) => run.headers['x-session-id'] === undefined);
    expect(started?.headers['x-result-review']).toBe('required');
    expect(started?.headers['x-plan-approval']).toBeUndefined();
    expect(started?.body['fleet_agents']).toEqual({
      prefer: ['rag-agent'],
      exclude: ['web-agent', 'mail-agent/send-mail'],
    });
  });

  it('shows the pending review: the answer and each step with a checkbox, as text', async () => {
    const pending = page.locator('article.review-pending');
    await pending.waitFor();
    await expect(pending.getByRole('heading').first().textContent()).resolves.toBe(
      'Review the answer (round 2)',
    );
    await expect(pending.locator('.review-answer').textContent()).resolves.toContain(
      `Answer of round 2: the weekly report went to Bob. ${INJECTED}`,
    );
    await expect(pending.getByRole('checkbox').count()).resolves.toBe(3);
    await expect(pending.locator('li[data-step-id="find"]').textContent()).resolves.toContain(
      `The weekly report ${INJECTED}`,
    );
    await expect(pending.locator('li[data-step-id="check"]').textContent()).resolves.toContain(
      'added',
    );
    for (const name of ['Approve', 'Revise selected steps', 'Re-plan', 'Rewrite the answer']) {
      await expect(pending.getByRole('button', { name }).isVisible()).resolves.toBe(true);
    }
    // The markup in the answer and the step's result is text: no image was made of it.
    await expect(page.locator('section.reviews img').count()).resolves.toBe(0);
    await expect(page.locator('.attention').textContent()).resolves.toContain('waiting for you');
  });

  it('lists the earlier round: its decision, the steps it re-ran and kept, its feedback', async () => {
    const round = page.locator('li.review-round[data-round="1"]');
    const text = await round.textContent();
    expect(text).toContain('Round 1');
    expect(text).toContain('steps revised');
    expect(text).toContain('Steps re-run: find, check');
    expect(text).toContain('Kept (their approved action was carried out): send');
    expect(text).toContain('Feedback: Use the monthly report.');
  });

  it('marks added steps (one added live), shows the steering and a refused hand-off', async () => {
    await expect(page.locator('tr[data-node-id="check"] .step-origin').textContent()).resolves.toBe(
      'added: hand-off from find',
    );
    await expect(
      page.locator('.plan-graph g[data-node-id="check"]').getAttribute('data-added'),
    ).resolves.toBe('true');
    await expect(page.locator('tr[data-node-id="send"] .step-origin').count()).resolves.toBe(0);
    // The live stream's node-added puts the step in the table and the graph.
    const live = page.locator('tr[data-node-id="retry"] .step-origin');
    await live.waitFor({ timeout: 10_000 });
    await expect(live.textContent()).resolves.toBe('added: re-plan after check failed');
    await expect(page.locator('.plan-graph g[data-node-id="retry"]').count()).resolves.toBe(1);
    await expect(
      page.locator('tr[data-node-id="find"] .step-revision').textContent(),
    ).resolves.toContain('Run again for review round 1: Use the monthly report.');

    const steering = page.locator('section.steering');
    await expect(steering.locator('[data-steering="prefer"]').textContent()).resolves.toBe(
      'Prefersrag-agent',
    );
    await expect(steering.locator('[data-steering="exclude"]').textContent()).resolves.toBe(
      'Leaves outweb-agent, mail-agent/send-mail',
    );
    await expect(steering.locator('[data-steering="require"]').count()).resolves.toBe(0);

    const log = page.getByRole('log', { name: 'Progress lines' });
    await log
      .getByText('Step send (mail-agent) handed off to web-agent; not taken: web-agent is left out')
      .waitFor({ timeout: 10_000 });
    await screenshot(page, 'review-01-pending');
  });

  it('says inline what a decision lacks, and sends nothing', async () => {
    const pending = page.locator('article.review-pending');
    const before = stub.reviews.length;
    await pending.getByRole('button', { name: 'Revise selected steps' }).click();
    await expect(pending.getByRole('alert').textContent()).resolves.toContain(
      'Select the steps to run again.',
    );
    await pending.getByRole('button', { name: 'Re-plan' }).click();
    await expect(pending.getByRole('alert').textContent()).resolves.toContain(
      'Say what to change in the feedback.',
    );
    expect(stub.reviews.length).toBe(before);
  });

  it('shows the gateway refusing a decision inline', async () => {
    refuseNext = { status: 409, message: 'Session sess-review-0001 is not waiting for a review.' };
    const pending = page.locator('article.review-pending');
    await pending.getByRole('button', { name: 'Rewrite the answer' }).click();
    await pending
      .getByRole('alert')
      .getByText('Session sess-review-0001 is not waiting for a review.')
      .waitFor();
    expect(stub.reviews.at(-1)?.body).toEqual({ decision: 'recompose' });
  });

  it('revises the selected step with the feedback, then the next round waits', async () => {
    const pending = page.locator('article.review-pending[data-review-id="rv-2"]');
    await pending.getByRole('checkbox', { name: 'Run step check again' }).check();
    await pending.getByLabel(/^Feedback/).fill('  Check against the monthly figures.  ');
    await pending.getByRole('button', { name: 'Revise selected steps' }).click();
    await page.locator('article.review-pending[data-review-id="rv-3"]').waitFor();
    expect(stub.reviews.at(-1)).toEqual({
      sessionId: SESSION_ID,
      body: {
        decision: 'revise',
        steps: ['check'],
        feedback: 'Check against the monthly figures.',
      },
    });
    const round = page.locator('li.review-round[data-round="2"]');
    await expect(round.textContent()).resolves.toContain(
      'Feedback: Check against the monthly figures.',
    );
    // The new round starts with nothing selected.
    await expect(
      page.locator('article.review-pending input[type="checkbox"]:checked').count(),
    ).resolves.toBe(0);
  });

  it('approves with a body that says approve only', async () => {
    const pending = page.locator('article.review-pending[data-review-id="rv-3"]');
    await pending.getByLabel(/^Feedback/).fill('not sent with an approval');
    await pending.getByRole('checkbox', { name: 'Run step find again' }).check();
    await pending.getByRole('button', { name: 'Approve' }).click();
    await page.locator('li.review-round[data-round="3"]').waitFor();
    expect(stub.reviews.at(-1)?.body).toEqual({ decision: 'approve' });
    await expect(page.locator('article.review-pending').count()).resolves.toBe(0);
    await expect(page.locator('li.review-round[data-round="3"]').textContent()).resolves.toContain(
      'approved',
    );
    await screenshot(page, 'review-02-decided');
  });

  it('broke no CSP rule and ran no injected script', async () => {
    // The one refusal the test asked for is logged by the browser as a failed load; nothing else.
    expect(problems).toEqual([
      'Failed to load resource: the server responded with a status of 409 (Conflict)',
    ]);
    expect(await page.evaluate('window.__injected')).toBeUndefined();
    await expect(page.locator('script:not([src])').count()).resolves.toBe(0);
  });
});
