/**
 * The web console (`/console`, served by the gateway) in a real browser: Debian's Chromium driven
 * by playwright-core, against a running fleet (gateway, orchestrator, planner, the real code agent
 * in bubblewrap and the real RAG agent as processes, real Redis, a scripted LLM as planner, code
 * writer and composer). A person signs in by keyboard, asks a question that needs the code agent's
 * approval, watches the graph and the progress lines move, reads the program (a `<script>` in it
 * stays text), approves it and sees the answer stream in; denies a second run with instructions;
 * uploads a document and sees it listed; erases a user's memory; reads the agents and their MCP
 * tools, each tenant under its own tool permissions. Screenshots go to
 * `e2e/output/console/`.
 */
import { randomUUID } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { Plan } from '@fleet/a2a';
import { createMemoryStore } from '@fleet/memory';
import {
  createQuestionExecutor,
  startScriptedAgent,
  startScriptedOpenAI,
  startSdkAgent,
  TRAVEL_AGENT_CARD,
  type QuestionExecutor,
  type ScriptedAgent,
  type ScriptedOpenAI,
  type ScriptedReply,
  type SdkAgent,
} from '@fleet/testing';
import { launchChromium, screenshot, SCREENSHOT_DIR } from './support/browser';
import OpenAI from 'openai';
import { gatewayApi, runUntilApproval } from './support/gateway-api';
import { E2E_INTERNAL_TOKEN, startFleet, type RunningFleet } from './support/start-fleet';

/**
 * Tenants of this run alone: sessions live on in the shared Redis, and other suites (running at
 * the same time) start sessions of their own tenants, so the lists here show only this test's.
 */
const RUN = randomUUID().slice(0, 8);
const TENANT = `console-${RUN}`;
const OTHER_TENANT = `console-other-${RUN}`;
/** A second tenant's key: it must see none of the first tenant's sessions. */
const OTHER_KEY = 'sk-e2e-other-tenant-0123456789';
/** The end of the composed answer: seen only once the whole answer has streamed. */
const ANSWER_END = 'That is all the code agent found.';
const ANSWER = `The program printed its result, step by step, and the fleet checked it before answering you here. ${ANSWER_END}`;
/** A program whose preview holds markup: it must show as text, never run in the page. */
const PROGRAM = 'print("<script>window.__injected = true</script><img src=x onerror=alert(1)>")';

function codePlan(task: string): Plan {
  return {
    nodes: [{ id: 'calc', agent: 'code-agent', skill: 'run-python', task, dependsOn: [] }],
    rationale: 'a calculation for the code agent',
    confidence: 0.9,
  };
}

/** A plan for the foreign travel agent (`@a2a-js/sdk`), which asks where before it books. */
function travelPlan(task: string): Plan {
  return {
    nodes: [{ id: 'book', agent: 'travel', skill: 'book-hotel', task, dependsOn: [] }],
    rationale: 'a booking for the travel agent',
    confidence: 0.9,
  };
}

function schemaName(request: unknown): string | undefined {
  const format = (request as { response_format?: { json_schema?: { name?: unknown } } })
    .response_format;
  const name = format?.json_schema?.name;
  return typeof name === 'string' ? name : undefined;
}

/** One accessibility problem axe-core found. */
interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[] }[];
}

/**
 * Runs axe-core (WCAG 2.1 A and AA rules) on the page as it stands, in the light and the dark
 * colour scheme, returning the serious and critical findings. The page's context must bypass the
 * CSP: axe is injected as a script.
 */
async function axeProblems(page: Page, axeSource: string): Promise<string[]> {
  await page.addScriptTag({ content: axeSource });
  const found: string[] = [];
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    // Pico eases colours over 0.2 s: let a switch of scheme finish before colours are measured.
    await new Promise((resolve) => setTimeout(resolve, 400));
    const violations = await page.evaluate<AxeViolation[]>(
      `axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } }).then((result) => result.violations)`,
    );
    for (const violation of violations) {
      if (violation.impact !== 'serious' && violation.impact !== 'critical') continue;
      const where = JSON.stringify(violation.nodes.slice(0, 3).map((node) => node.target));
      found.push(
        `${colorScheme}: ${violation.id} (${violation.impact}): ${violation.help} — ${where}`,
      );
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  return found;
}

/** The answer's text the first time it shows while incomplete (polled every 25 ms). */
async function firstPartialAnswer(page: Page, timeoutMs: number): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  const answer = page.locator('.answer');
  while (Date.now() < deadline) {
    const text = (await answer.count()) === 0 ? '' : ((await answer.textContent()) ?? '');
    if (text.includes(ANSWER_END)) throw new Error('The answer appeared whole: it did not stream.');
    if (text !== '') return text;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`No answer within ${timeoutMs} ms.`);
}

describe('the web console in Chromium', () => {
  let llm: ScriptedOpenAI;
  let fleet: RunningFleet;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let redis: Redis;
  let travel: QuestionExecutor;
  let travelAgent: SdkAgent;
  /** An agent whose skills are MCP tools, as the tools agent's card lists them. */
  let toolsAgent: ScriptedAgent;
  /** Everything the page reported that a person would not want: CSP violations, script errors. */
  const problems: string[] = [];
  const dialogs: string[] = [];
  const requestedUrls: string[] = [];

  beforeAll(async () => {
    await rm(SCREENSHOT_DIR, { recursive: true, force: true });
    llm = await startScriptedOpenAI({
      respond: (recorded, context): ScriptedReply => {
        const body = recorded.body as { messages?: { role: string; content: string }[] };
        const system = body.messages?.[0]?.content ?? '';
        if (system.includes('self-contained Python')) {
          return { content: `\`\`\`python\n${PROGRAM}\n\`\`\`` };
        }
        const schema = schemaName(context.request);
        if (schema === 'approval_instructions')
          return { json: { mode: 'enhance', effectiveTask: '' } };
        if (schema === 'user_memory') return { json: { facts: {}, preferences: {} } };
        if (context.jsonSchema !== undefined) {
          const task = context.lastUserMessage;
          return { json: task.includes('hotel') ? travelPlan(task) : codePlan(task) };
        }
        // The composer: slowly enough that a person (and this test) sees the answer grow.
        return { content: ANSWER, chunkDelayMs: 120 };
      },
    });
    travel = createQuestionExecutor({ question: 'Which city should I book?' });
    travelAgent = await startSdkAgent({
      ...TRAVEL_AGENT_CARD,
      executor: travel,
      token: E2E_INTERNAL_TOKEN,
    });
    toolsAgent = await startScriptedAgent({
      name: 'tools',
      description: 'MCP tools of the fleet',
      internalToken: E2E_INTERNAL_TOKEN,
      skills: [
        {
          id: 'memory/read_graph',
          name: 'read_graph',
          description: 'Reads the knowledge graph',
          tags: ['mcp', 'mcp-server:memory', 'approval:none', 'read-only'],
        },
        {
          id: 'memory/delete_entities',
          name: 'delete_entities',
          description: 'Deletes entities from the knowledge graph',
          tags: ['mcp', 'mcp-server:memory', 'approval:required', 'destructive'],
        },
      ],
    });
    fleet = await startFleet({
      env: { OPENAI_BASE_URL: llm.baseURL, OPENAI_API_KEY: 'sk-e2e-upstream' },
      serviceEnv: {
        orchestrator: { HITL_TIMEOUT_SECONDS: '300', NODE_TIMEOUT_MS: '60000' },
        gateway: {
          GATEWAY_API_KEYS: `sk-e2e-0123456789abcdef:${TENANT},${OTHER_KEY}:${OTHER_TENANT}`,
          // The other tenant may not delete: its Agents page never shows the tool.
          GATEWAY_TOOL_PERMISSIONS: JSON.stringify({
            tenants: { [OTHER_TENANT]: { deny: ['memory/delete_*'] } },
          }),
        },
      },
      agents: [],
      agentUrls: [travelAgent.url, toolsAgent.url],
      ragAgent: true,
      agentServices: { 'code-agent': { CODE_AGENT_TIMEOUT_MS: '10000' } },
    });
    redis = new Redis(process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379');
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    page.on('request', (request) => requestedUrls.push(request.url()));
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    redis?.disconnect();
    await fleet?.stop();
    await travelAgent?.stop();
    await toolsAgent?.close();
    await llm?.close();
  }, 60_000);

  const consoleUrl = (path = ''): string => `${fleet.gateway.url}/console${path}`;

  it('serves the page with a strict CSP and refuses a wrong key', async () => {
    const response = await page.goto(consoleUrl('/'));
    expect(response?.status()).toBe(200);
    const csp = response?.headers()['content-security-policy'] ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('unsafe-eval');
    expect(response?.headers()['cache-control']).toBe('no-cache');

    await page.getByLabel('API key').fill('sk-not-a-key-of-this-fleet-000');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toMatch(/key/i);
    await screenshot(page, '01-sign-in-refused');
  });

  it('signs in by keyboard and keeps the key in this tab only', async () => {
    await page.getByLabel('API key').fill('');
    await page.getByLabel('API key').focus();
    await page.keyboard.type('sk-e2e-0123456789abcdef');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Sessions' }).waitFor();
    expect(await page.evaluate('sessionStorage.length')).toBe(1);
    expect(await page.evaluate('localStorage.length')).toBe(0);
    expect(page.url()).not.toContain('sk-e2e');
    // The API's answers are never cached.
    const sessions = await page.evaluate(
      `fetch('/v1/sessions', { headers: { Authorization: 'Bearer ' + sessionStorage.getItem('fleet.console.apiKey') } }).then((r) => r.headers.get('cache-control'))`,
    );
    expect(sessions).toBe('no-store');
  });

  let approvedSessionUrl = '';

  it('runs a question that needs approval: graph, lines, preview as text, approve, streamed answer', async () => {
    await page.getByRole('link', { name: 'Ask', exact: true }).click();
    await page.getByLabel('Question').fill('Compute something in Python for me.');
    await page.getByRole('button', { name: 'Ask', exact: true }).click();
    await page.waitForURL(/\/console\/sessions\/[\w-]+$/);
    approvedSessionUrl = page.url();

    // The graph moves to "waiting for approval" and the progress lines come from the stream.
    const node = page.locator('.plan-graph [data-node-id="calc"]');
    await node.and(page.locator('[data-state="waiting_approval"]')).waitFor({ timeout: 30_000 });
    await expect(page.getByRole('log').textContent()).resolves.toMatch(/Plan|plan/);
    const approval = page.locator('article.approval');
    await approval.getByRole('button', { name: 'Approve' }).waitFor();

    // The preview is the program, as text: the markup in it is shown, not run.
    const preview = await approval.locator('pre.preview code').textContent();
    expect(preview).toContain('<script>window.__injected = true</script>');
    expect(await page.evaluate('window.__injected === undefined')).toBe(true);
    expect(await page.locator('script:not([src])').count()).toBe(0);
    expect(await page.locator('main img').count()).toBe(0);
    await screenshot(page, '02-waiting-for-approval');

    // Approve by keyboard.
    await approval.getByRole('button', { name: 'Approve' }).focus();
    await page.keyboard.press('Enter');

    // The answer streams: seen while it is still incomplete, then whole. (Polled from here: the
    // page's CSP forbids the string evaluation `waitForFunction` would use.)
    const partial = await firstPartialAnswer(page, 30_000);
    expect(partial.length).toBeGreaterThan(0);
    expect(ANSWER.startsWith(partial.trim())).toBe(true);
    await screenshot(page, '03-answer-streaming');
    await page.locator('.answer', { hasText: ANSWER_END }).waitFor({ timeout: 30_000 });
    await node.and(page.locator('[data-state="completed"]')).waitFor({ timeout: 15_000 });
    await page.locator('section.session[data-status="completed"]').waitFor({ timeout: 15_000 });
    await expect(page.locator('article.approval .badge').first().textContent()).resolves.toBe(
      'approved',
    );
    await screenshot(page, '04-completed');
  }, 120_000);

  it('denies a second run with instructions', async () => {
    await page.getByRole('link', { name: 'Ask', exact: true }).click();
    await page.getByLabel('Question').fill('Run another program, please.');
    await page.getByRole('button', { name: 'Ask', exact: true }).click();
    await page.waitForURL(/\/console\/sessions\/[\w-]+$/);
    const approval = page.locator('article.approval');
    await approval.getByRole('button', { name: 'Deny' }).waitFor({ timeout: 30_000 });

    // A reload loses the tab's stream: the page follows the session again (X-Session-ID, no
    // message), and the run's end reaches it through that follow.
    const sessionId = page.url().split('/').pop() ?? '';
    const followed = page.waitForRequest(
      (request) =>
        request.url().endsWith('/v1/chat/completions') &&
        request.headers()['x-session-id'] === sessionId,
    );
    await page.reload();
    const follow = await followed;
    expect(JSON.parse(follow.postData() ?? '{}')).toMatchObject({
      stream: true,
      messages: [{ role: 'system' }],
    });
    await approval.getByRole('button', { name: 'Deny' }).waitFor({ timeout: 30_000 });
    await approval.getByLabel(/Instructions/).fill('Not without a code review first.');
    await approval.getByRole('button', { name: 'Deny' }).click();
    await page
      .locator('.plan-graph [data-node-id="calc"][data-state="rejected"]')
      .waitFor({ timeout: 30_000 });
    await expect(approval.locator('.badge').first().textContent()).resolves.toBe('denied');
    await approval.getByText('Not without a code review first.').waitFor();
    await page.locator('section.session[data-status="completed"]').waitFor({ timeout: 30_000 });
    await page.locator('.answer', { hasText: ANSWER_END }).waitFor({ timeout: 30_000 });
    await expect(page.getByRole('log').textContent()).resolves.toMatch(/denied|rejected/i);
    await screenshot(page, '05-denied');

    // The sessions list shows both, newest first.
    await page.getByRole('link', { name: 'Sessions', exact: true }).first().click();
    const rows = page.locator('.sessions-table tbody tr');
    await rows.nth(1).waitFor();
    await expect(rows.nth(0).textContent()).resolves.toContain('Run another program');
    await expect(rows.nth(1).textContent()).resolves.toContain('Compute something in Python');
  }, 120_000);

  it("answers a foreign agent's question on the page", async () => {
    await page.getByRole('link', { name: 'Ask', exact: true }).click();
    await page.getByLabel('Question').fill('Book a hotel for my trip next week.');
    await page.getByRole('button', { name: 'Ask', exact: true }).click();
    await page.waitForURL(/\/console\/sessions\/[\w-]+$/);
    const question = page.locator('article.question');
    await question.getByText('Which city should I book?').waitFor({ timeout: 30_000 });
    await page
      .locator('.plan-graph [data-node-id="book"][data-state="waiting_input"]')
      .waitFor({ timeout: 15_000 });
    await question.getByLabel('Your answer').fill('Lisbon');
    await question.getByRole('button', { name: 'Send answer' }).click();
    await page
      .locator('.plan-graph [data-node-id="book"][data-state="completed"]')
      .waitFor({ timeout: 30_000 });
    await page.locator('section.session[data-status="completed"]').waitFor({ timeout: 30_000 });
    await question.getByText('Answered: Lisbon').waitFor();
    expect(travel.answers.map((answer) => answer.text)).toEqual(['Lisbon']);
    await screenshot(page, '06-question-answered');
  }, 90_000);

  it('cancels a run that waits for approval', async () => {
    await page.getByRole('link', { name: 'Ask', exact: true }).click();
    await page.getByLabel('Question').fill('A program I will change my mind about.');
    await page.getByRole('button', { name: 'Ask', exact: true }).click();
    await page.waitForURL(/\/console\/sessions\/[\w-]+$/);
    await page.locator('article.approval').getByRole('button', { name: 'Approve' }).waitFor({
      timeout: 30_000,
    });
    await page.getByRole('button', { name: 'Cancel…' }).click();
    await page.getByRole('button', { name: 'Cancel the run' }).click();
    await page.locator('section.session[data-status="canceled"]').waitFor({ timeout: 15_000 });
    await expect(
      page.locator('article.approval').getByRole('button', { name: 'Approve' }).count(),
    ).resolves.toBe(0);
  }, 60_000);

  it('reads at 360 px without sideways scrolling', async () => {
    await page.setViewportSize({ width: 360, height: 780 });
    await page.goto(approvedSessionUrl);
    await page.locator('section.session[data-status="completed"]').waitFor();
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);
    await screenshot(page, '07-session-360px');
    await page.getByRole('link', { name: 'Sessions', exact: true }).first().click();
    await page.locator('.sessions-table tbody tr').first().waitFor();
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('uploads a document with progress and lists it, then deletes it', async () => {
    await page.getByRole('link', { name: 'Documents' }).click();
    await page.getByLabel('File').setInputFiles({
      name: 'travel-policy.md',
      mimeType: 'text/markdown',
      buffer: Buffer.from(
        '# Travel policy\n\nTrains are booked in second class for trips under four hours.\n',
      ),
    });
    await page.getByRole('button', { name: 'Upload' }).click();
    await page.getByRole('status').filter({ hasText: 'travel-policy.md is stored' }).waitFor({
      timeout: 60_000,
    });
    const row = page.locator('.documents-table tbody tr', { hasText: 'travel-policy.md' });
    await row.waitFor();
    await screenshot(page, '08-documents');
    const listed = await gatewayApi(fleet, '/documents');
    expect(listed.body['data']).toEqual(
      expect.arrayContaining([expect.objectContaining({ filename: 'travel-policy.md' })]),
    );

    await row.getByRole('button', { name: 'Delete travel-policy.md…' }).click();
    await row.getByRole('button', { name: 'Delete travel-policy.md', exact: true }).click();
    await page.getByText('No documents yet.').waitFor({ timeout: 30_000 });
  }, 90_000);

  it("shows and erases a user's memory", async () => {
    const store = createMemoryStore({ redis });
    await store.merge(
      { tenant: TENANT, user: 'ada@example.com' },
      {
        update: { facts: { name: 'Ada', company: 'Kestrel' }, preferences: { tone: 'formal' } },
        source: 'rules',
      },
    );
    await page.getByRole('link', { name: 'Memory' }).click();
    await page.getByLabel('User').fill('ada@example.com');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.getByRole('heading', { name: 'ada@example.com' }).waitFor();
    await page.getByText('Kestrel').waitFor();
    await screenshot(page, '09-memory');
    await page.getByRole('button', { name: 'Erase memory…' }).click();
    await page.getByRole('button', { name: 'Erase now' }).click();
    await page.getByText('Everything remembered about ada@example.com was erased.').waitFor();
    await page.getByText('Nothing is remembered.').waitFor();
    expect((await store.get({ tenant: TENANT, user: 'ada@example.com' })).facts).toEqual({});
  });

  it('lists the agents with their availability and which tools ask for approval', async () => {
    await page.getByRole('link', { name: 'Agents' }).click();
    await page.getByRole('heading', { name: 'Agents', level: 1 }).waitFor();
    const tools = page.locator('article.agent[data-agent="tools"]');
    await tools.getByRole('heading', { name: 'tools' }).waitFor();
    await expect(tools.locator('.badge-availability-ready').textContent()).resolves.toBe('Ready');
    const remove = tools.locator('tr[data-skill-id="memory/delete_entities"]');
    await expect(remove.locator('.badge-approval').textContent()).resolves.toBe(
      'asks for approval',
    );
    await expect(remove.locator('.badge-destructive').count()).resolves.toBe(1);
    const read = tools.locator('tr[data-skill-id="memory/read_graph"]');
    await expect(read.locator('.badge-read-only').count()).resolves.toBe(1);
    await expect(read.locator('.badge-approval').count()).resolves.toBe(0);
    // The code agent and the travel agent are listed too, with their own skills.
    await page.locator('article.agent[data-agent="code-agent"]').waitFor();
    await screenshot(page, '10-agents');
  });

  it("keeps tenants apart: another tenant's key sees none of these sessions", async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    expect(await page.evaluate('sessionStorage.length')).toBe(0);
    await page.getByLabel('API key').fill(OTHER_KEY);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: 'Sessions', exact: true }).first().click();
    await page.getByText('No sessions yet.').waitFor();
    await page.goto(approvedSessionUrl);
    await expect(page.getByRole('alert').textContent()).resolves.toMatch(/does not exist/);
    // Its tool permissions deny deleting: the tool is not listed for it.
    await page.goto(consoleUrl('/agents'));
    await page.locator('tr[data-skill-id="memory/read_graph"]').waitFor();
    await expect(page.locator('tr[data-skill-id="memory/delete_entities"]').count()).resolves.toBe(
      0,
    );
  });

  it('passes axe-core accessibility checks on every page, an approval waiting included', async () => {
    const axeSource = await readFile(require.resolve('axe-core/axe.min.js'), 'utf8');
    // A separate context whose CSP is bypassed, only so axe can be injected; the console's own
    // context above ran under the CSP throughout.
    const audit = await browser.newContext({
      bypassCSP: true,
      viewport: { width: 1280, height: 900 },
    });
    const auditPage = await audit.newPage();
    try {
      const problems: Record<string, string[]> = {};
      await auditPage.goto(consoleUrl('/'));
      problems['sign-in'] = await axeProblems(auditPage, axeSource);
      await auditPage.getByLabel('API key').fill('sk-e2e-0123456789abcdef');
      await auditPage.getByRole('button', { name: 'Sign in' }).click();
      await auditPage.locator('.sessions-table tbody tr').first().waitFor();
      problems['sessions'] = await axeProblems(auditPage, axeSource);

      const client = new OpenAI({ apiKey: fleet.apiKey, baseURL: fleet.baseURL, maxRetries: 0 });
      const { sessionId, asked } = await runUntilApproval(client, 'One more program to approve.');
      await auditPage.goto(consoleUrl(`/sessions/${sessionId}`));
      await auditPage
        .locator('article.approval')
        .getByRole('button', { name: 'Approve' })
        .waitFor();
      problems['session waiting for approval'] = await axeProblems(auditPage, axeSource);
      await gatewayApi(fleet, `/sessions/${sessionId}/approvals/${String(asked['approvalId'])}`, {
        method: 'POST',
        body: JSON.stringify({ decision: 'deny' }),
      });
      await auditPage.goto(approvedSessionUrl);
      await auditPage.locator('section.session[data-status="completed"]').waitFor();
      problems['completed session'] = await axeProblems(auditPage, axeSource);

      for (const [name, path] of [
        ['ask', '/ask'],
        ['documents', '/documents'],
        ['memory', '/memory'],
        ['agents', '/agents'],
      ] as const) {
        await auditPage.goto(consoleUrl(path));
        await auditPage.locator('main h1').waitFor();
        await auditPage.waitForLoadState('networkidle');
        problems[name] = await axeProblems(auditPage, axeSource);
      }
      expect(problems).toEqual({
        'sign-in': [],
        sessions: [],
        'session waiting for approval': [],
        'completed session': [],
        ask: [],
        documents: [],
        memory: [],
        agents: [],
      });
    } finally {
      await audit.close();
    }
  }, 90_000);

  it('never put the key in a URL, ran no injected script and broke no CSP rule', () => {
    expect(requestedUrls.filter((url) => url.includes('sk-e2e'))).toEqual([]);
    expect(dialogs).toEqual([]);
    expect(problems.filter((problem) => /Content Security Policy|Refused/i.test(problem))).toEqual(
      [],
    );
    expect(problems.filter((problem) => problem.startsWith('page error'))).toEqual([]);
    // The gateway's log never holds a key either.
    expect(fleet.gateway.process.output()).not.toContain('sk-e2e-0123456789abcdef');
  });
});
