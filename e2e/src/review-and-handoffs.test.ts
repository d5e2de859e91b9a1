/**
 * Runs a person reviews and plans that grow, end to end on a running fleet driven with the
 * official openai SDK: every agent is built on `@a2a-js/sdk` alone (`createAnswerExecutor`), the
 * planner and composer are a scripted model. A review sends one step of three back and only that
 * step and its dependent run again; a foreign agent's hand-off adds a step; a fourth hand-off, a
 * hand-off back along its chain (A→B→A) and one to an excluded agent are refused; a run revised
 * twice survives SIGKILL of its orchestrator and ends with the third answer; and a person revises
 * one step and approves the answer in the web console, in Debian's Chromium.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import type { Browser } from 'playwright-core';
import type { Plan } from '@fleet/a2a';
import {
  createAnswerExecutor,
  startScriptedOpenAI,
  startSdkAgent,
  type AnswerExecutor,
  type AnswerReply,
  type AnswerTask,
  type ScriptedOpenAI,
  type SdkAgent,
} from '@fleet/testing';
import {
  eventsOf,
  gatewayApi,
  streamChat,
  waitForSession,
  type FleetEvent,
  type Json,
} from './support/gateway-api';
import { launchChromium, screenshot } from './support/browser';
import { E2E_INTERNAL_TOKEN, startFleet, type RunningFleet } from './support/start-fleet';

/** The plan the scripted planner answers with next. */
let nextPlan: Plan | undefined;
/** How many answers the scripted composer wrote; each says its number. */
let composed = 0;

/** What each agent answers; by default its name and how many tasks it has had. */
const replies: Record<string, (task: AnswerTask, count: number) => AnswerReply> = {};

const AGENTS = [
  { name: 'docs', skill: 'search-documents', description: 'Searches the company documents.' },
  { name: 'web', skill: 'web-search', description: 'Searches the web for products.' },
  { name: 'mail', skill: 'draft-mail', description: 'Drafts e-mails.' },
  { name: 'scout', skill: 'scout', description: 'Looks around and hands work on.' },
  { name: 'ping', skill: 'ping', description: 'Ping.' },
  { name: 'pong', skill: 'pong', description: 'Pong.' },
  ...[1, 2, 3, 4, 5].map((n) => ({
    name: `relay-${n}`,
    skill: `relay-${n}`,
    description: `Relay ${n}.`,
  })),
];

function plan(nodes: { id: string; agent: string; dependsOn?: string[]; task?: string }[]): Plan {
  return {
    nodes: nodes.map((node) => ({
      task: `${node.id}: the ${node.agent} part`,
      dependsOn: [],
      ...node,
    })),
    rationale: 'scripted plan',
    confidence: 0.9,
  };
}

describe('runs a person reviews, and plans that grow', () => {
  let llm: ScriptedOpenAI;
  let fleet: RunningFleet;
  let client: OpenAI;
  const agents: Record<string, SdkAgent> = {};
  const executors: Record<string, AnswerExecutor> = {};
  /** A run whose plan grew by a hand-off, and the step it added: the console shows it. */
  let grown: { sessionId: string; nodeId: string } | undefined;

  /** The tasks an agent was given for a session. */
  const tasksOf = (agent: string, sessionId: string): AnswerTask[] =>
    executors[agent]!.tasks.filter((task) => task.fleet?.['sessionId'] === sessionId);

  const review = (sessionId: string, body: unknown) =>
    gatewayApi(fleet, `/sessions/${sessionId}/review`, {
      method: 'POST',
      body: JSON.stringify(body),
    });

  beforeAll(async () => {
    llm = await startScriptedOpenAI({
      respond: (_request, context) => {
        if (context.jsonSchema !== undefined)
          return nextPlan === undefined ? {} : { json: nextPlan };
        composed += 1;
        return { content: `Answer ${composed}: what the steps found.` };
      },
    });
    for (const { name, skill, description } of AGENTS) {
      const executor = createAnswerExecutor({
        reply: (task, count) => replies[name]?.(task, count) ?? { text: `${name} result ${count}` },
      });
      executors[name] = executor;
      agents[name] = await startSdkAgent({
        name,
        description,
        skills: [{ id: skill, tags: [skill] }],
        executor,
        token: E2E_INTERNAL_TOKEN,
      });
    }
    fleet = await startFleet({
      agents: [],
      agentUrls: Object.values(agents).map((agent) => agent.url),
      env: { OPENAI_BASE_URL: llm.baseURL, OPENAI_API_KEY: 'sk-e2e-upstream' },
      serviceEnv: {
        orchestrator: {
          SESSION_RECOVERY_INTERVAL_MS: '1000',
          MEMORY_ENABLED: 'false',
          HITL_TIMEOUT_SECONDS: '300',
        },
      },
    });
    client = new OpenAI({ apiKey: fleet.apiKey, baseURL: fleet.baseURL, maxRetries: 0 });
  }, 120_000);

  afterAll(async () => {
    await fleet?.stop();
    for (const agent of Object.values(agents)) await agent.stop();
    await llm?.close();
  }, 60_000);

  it('re-runs only the step a review sends back and its dependent', async () => {
    composed = 0;
    nextPlan = plan([
      { id: 'docs', agent: 'docs' },
      { id: 'find', agent: 'web', task: 'Find the product the customer asked about' },
      { id: 'draft', agent: 'mail', dependsOn: ['find'] },
    ]);
    replies['web'] = (task, count) => ({
      text: task.text.includes('the G3, not the G2') ? `Found the G3 (${count})` : 'Found the G2',
    });
    const decisions: { status: number; body: Json }[] = [];
    const chat = await streamChat(client, {
      message: 'Check our documents, find the product on the web and draft a mail about it',
      headers: { 'X-Result-Review': 'required' },
      onEvent: async (event, { sessionId }) => {
        if (event.type !== 'review-required') return;
        decisions.push(
          await review(
            sessionId,
            event['round'] === 1
              ? { decision: 'revise', steps: ['find'], feedback: 'the G3, not the G2' }
              : { decision: 'approve' },
          ),
        );
      },
    });
    delete replies['web'];
    expect(chat.error).toBeUndefined();
    expect(decisions.map((decision) => decision.status)).toEqual([200, 200]);

    const [first, second, ...more] = eventsOf(chat.events, 'review-required');
    expect(more).toEqual([]);
    expect(first).toMatchObject({ round: 1, answer: expect.stringContaining('Answer 1') });
    expect((first?.['steps'] as Json[]).map((step) => step['id'])).toEqual([
      'docs',
      'find',
      'draft',
    ]);
    expect((first?.['steps'] as Json[])[1]).toMatchObject({ summary: 'Found the G2' });
    expect(second).toMatchObject({ round: 2, answer: expect.stringContaining('Answer 2') });
    expect(eventsOf(chat.events, 'review-end')).toEqual([
      expect.objectContaining({ round: 1, decision: 'revise', rerun: ['find', 'draft'] }),
      expect.objectContaining({ round: 2, decision: 'approve' }),
    ]);

    // The documents step kept its result: its agent saw one task. The web step ran again with
    // the feedback, and the draft (which depends on it) with the new result.
    expect(tasksOf('docs', chat.sessionId)).toHaveLength(1);
    const web = tasksOf('web', chat.sessionId);
    expect(web).toHaveLength(2);
    expect(web[1]?.text).toContain('the G3, not the G2');
    const drafts = tasksOf('mail', chat.sessionId);
    expect(drafts).toHaveLength(2);
    expect(drafts[1]?.text).toContain('Found the G3');
    expect(chat.content).toContain('Answer 2');
    expect(chat.content).not.toContain('Answer 1');

    const session = await waitForSession(fleet, chat.sessionId, (s) => s['status'] === 'completed');
    expect(session['resultReview']).toBe(true);
    expect(session['reviews']).toEqual([
      expect.objectContaining({
        round: 1,
        decision: 'revise',
        targets: ['find'],
        rerun: ['find', 'draft'],
        feedback: 'the G3, not the G2',
      }),
      expect.objectContaining({ round: 2, decision: 'approve', status: 'approved' }),
    ]);
    // A decided review cannot be decided again.
    const again = await review(chat.sessionId, { decision: 'approve' });
    expect(again.status).toBe(409);
  }, 120_000);

  it("adds a step for a foreign agent's hand-off, and refuses one to an excluded agent", async () => {
    composed = 0;
    nextPlan = plan([{ id: 'look', agent: 'scout', task: 'Look for the G3 and its price' }]);
    replies['scout'] = () => ({
      text: 'The G3 costs 499 EUR.',
      handoff: {
        skill: 'draft-mail',
        task: 'Draft a mail offering the G3',
        context: 'price: 499 EUR',
      },
    });
    const chat = await streamChat(client, { message: 'Look for the G3 and tell the customer' });
    expect(chat.error).toBeUndefined();
    const [added, ...moreAdded] = eventsOf(chat.events, 'node-added');
    expect(moreAdded).toEqual([]);
    expect(added?.['node']).toMatchObject({
      agent: 'mail',
      origin: { kind: 'handoff', from: 'look' },
    });
    const [draft, ...moreDrafts] = tasksOf('mail', chat.sessionId);
    expect(moreDrafts).toEqual([]);
    expect(draft?.text).toContain('Draft a mail offering the G3');
    expect(draft?.text).toContain('price: 499 EUR');
    const session = await waitForSession(fleet, chat.sessionId, (s) => s['status'] === 'completed');
    const nodes = (session['plan'] as Json)['nodes'] as Json[];
    expect(nodes.map((node) => node['agent'])).toEqual(['scout', 'mail']);
    const addedId = String((added?.['node'] as Json | undefined)?.['id']);
    expect(session['nodes'][addedId]).toMatchObject({ state: 'completed' });
    grown = { sessionId: chat.sessionId, nodeId: addedId };

    // The same hand-off in a run that excludes the mail agent is refused; the run still answers.
    const excluded = await streamChat(client, {
      message: 'Look for the G3 and tell the customer',
      headers: { 'X-Fleet-Agents': 'exclude=mail' },
    });
    delete replies['scout'];
    expect(excluded.error).toBeUndefined();
    expect(eventsOf(excluded.events, 'node-added')).toEqual([]);
    expect(eventsOf(excluded.events, 'handoff-refused')).toEqual([
      expect.objectContaining({ nodeId: 'look', agent: 'scout', target: 'draft-mail' }),
    ]);
    expect(tasksOf('mail', excluded.sessionId)).toEqual([]);
    expect(excluded.content).toContain('Answer');
  }, 120_000);

  it('refuses a fourth hand-off and a hand-off back along its chain', async () => {
    // relay-1 → relay-2 → relay-3 → relay-4 → relay-5: the fourth is one too many.
    for (const n of [1, 2, 3, 4]) {
      replies[`relay-${n}`] = () => ({
        text: `relay ${n} done`,
        handoff: { agent: `relay-${n + 1}`, task: `carry on after relay ${n}` },
      });
    }
    nextPlan = plan([{ id: 'start', agent: 'relay-1' }]);
    const chain = await streamChat(client, { message: 'Pass it along' });
    expect(chain.error).toBeUndefined();
    const addedAgents = eventsOf(chain.events, 'node-added').map(
      (event) => (event['node'] as Json)['agent'] as string,
    );
    expect(addedAgents).toEqual(['relay-2', 'relay-3', 'relay-4']);
    const [refused, ...moreRefused] = eventsOf(chain.events, 'handoff-refused');
    expect(moreRefused).toEqual([]);
    expect(refused).toMatchObject({ agent: 'relay-4', target: 'relay-5' });
    expect(String(refused?.['reason'])).toMatch(/3 hand-offs/);
    expect(tasksOf('relay-5', chain.sessionId)).toEqual([]);

    // ping → pong → ping: two foreign agents that keep handing off to each other.
    replies['ping'] = () => ({ text: 'ping', handoff: { agent: 'pong', task: 'pong it' } });
    replies['pong'] = () => ({
      text: 'pong',
      handoff: { agent: 'ping', task: 'ping it back' },
      handoffIn: 'status',
    });
    nextPlan = plan([{ id: 'serve', agent: 'ping' }]);
    const loop = await streamChat(client, { message: 'Play ping pong' });
    for (const name of Object.keys(replies)) delete replies[name];
    expect(loop.error).toBeUndefined();
    expect(eventsOf(loop.events, 'node-added')).toHaveLength(1);
    expect(eventsOf(loop.events, 'handoff-refused')).toEqual([
      expect.objectContaining({ agent: 'pong', target: 'ping' }),
    ]);
    expect(tasksOf('ping', loop.sessionId)).toHaveLength(1);
    expect(tasksOf('pong', loop.sessionId)).toHaveLength(1);
    const session = await waitForSession(fleet, loop.sessionId, (s) => s['status'] === 'completed');
    expect(Object.values(session['nodes'] as Json).map((node) => node['state'])).toEqual([
      'completed',
      'completed',
    ]);
  }, 120_000);

  it('a run revised twice survives SIGKILL of its orchestrator and ends with the third answer', async () => {
    composed = 0;
    nextPlan = plan([
      { id: 'docs', agent: 'docs' },
      { id: 'find', agent: 'web' },
      { id: 'draft', agent: 'mail', dependsOn: ['docs', 'find'] },
    ]);
    let third: FleetEvent | undefined;
    const chat = await streamChat(client, {
      message: 'Find the G3, check our documents and draft a mail',
      headers: { 'X-Result-Review': 'required' },
      onEvent: async (event, { sessionId }) => {
        if (event.type !== 'review-required') return undefined;
        if (event['round'] === 1) {
          await review(sessionId, { decision: 'revise', steps: ['find'], feedback: 'the G3' });
        } else if (event['round'] === 2) {
          await review(sessionId, {
            decision: 'revise',
            steps: ['docs'],
            feedback: 'the 2026 price list',
          });
        } else {
          third = event;
          return 'stop';
        }
        return undefined;
      },
    });
    const sessionId = chat.sessionId;
    expect(third).toMatchObject({ round: 3, answer: expect.stringContaining('Answer 3') });

    // Bad decisions while it waits: a step the plan lacks, and a body that is not a decision.
    const unknown = await review(sessionId, { decision: 'revise', steps: ['nope'], feedback: 'x' });
    expect(unknown.status).toBe(400);
    expect(unknown.body['error']).toMatchObject({
      param: 'steps',
      message: expect.stringContaining('"docs", "find", "draft"'),
    });
    expect((await review(sessionId, { decision: 'revise', feedback: 'x' })).status).toBe(400);

    // The orchestrator dies without a word while the third answer waits for review.
    await fleet.crashAndRestart('orchestrator');
    const waiting = await waitForSession(
      fleet,
      sessionId,
      (s) => (s['reviews'] as Json[] | undefined)?.at(-1)?.['status'] === 'pending',
    );
    expect((waiting['reviews'] as Json[]).map((round) => round['decision'] ?? null)).toEqual([
      'revise',
      'revise',
      null,
    ]);
    const approved = await review(sessionId, { decision: 'approve' });
    expect(approved.status).toBe(200);
    const done = await waitForSession(fleet, sessionId, (s) => s['status'] === 'completed');
    expect(done['result']['text']).toContain('Answer 3');
    // The restarted orchestrator composed nothing new and called no agent again.
    expect(composed).toBe(3);
    expect(tasksOf('web', sessionId)).toHaveLength(2);
    expect(tasksOf('docs', sessionId)).toHaveLength(2);
    expect(tasksOf('mail', sessionId)).toHaveLength(3);

    // X-Session-ID streams the rest: the third answer.
    const rest = await streamChat(client, { message: 'resume', sessionId });
    expect(rest.content).toContain('Answer 3');
  }, 180_000);
  it('a person revises one step and approves the answer in the console', async () => {
    composed = 0;
    nextPlan = plan([
      { id: 'docs', agent: 'docs' },
      { id: 'find', agent: 'web' },
      { id: 'draft', agent: 'mail', dependsOn: ['find'] },
    ]);
    const chat = await streamChat(client, {
      message: 'Find the G3 and draft a mail about it',
      headers: { 'X-Result-Review': 'required' },
      onEvent: (event) => (event.type === 'review-required' ? 'stop' : undefined),
    });
    const sessionId = chat.sessionId;
    let browser: Browser | undefined;
    try {
      browser = await launchChromium();
      const page = await browser.newPage();
      await page.goto(`${fleet.gateway.url}/console/`);
      await page.getByLabel('API key').fill(fleet.apiKey);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Sessions' }).waitFor();
      await page.goto(`${fleet.gateway.url}/console/sessions/${sessionId}`);
      const first = page.locator('article.review-pending');
      await first.waitFor();
      await expect(first.locator('.review-answer').textContent()).resolves.toContain('Answer 1');
      await first.getByRole('checkbox', { name: 'Run step find again' }).check();
      await first.getByLabel(/^Feedback/).fill('the G3, not the G2');
      await screenshot(page, 'review-fleet-01-pending');
      await first.getByRole('button', { name: 'Revise selected steps' }).click();

      // The next round comes from the real orchestrator: the step and its dependent ran again.
      await page.locator('li.review-round[data-round="1"]').waitFor({ timeout: 30_000 });
      const second = page.locator('article.review-pending');
      await second.locator('.review-answer').getByText('Answer 2').waitFor({ timeout: 30_000 });
      await second.getByRole('button', { name: 'Approve' }).click();
      await page.locator('li.review-round[data-round="2"]').waitFor({ timeout: 30_000 });
      await screenshot(page, 'review-fleet-02-approved');

      // A plan that grew by a hand-off marks the added step, in the table and the graph.
      expect(grown).toBeDefined();
      await page.goto(`${fleet.gateway.url}/console/sessions/${grown!.sessionId}`);
      const origin = page.locator(`tr[data-node-id="${grown!.nodeId}"] .step-origin`);
      await origin.waitFor();
      await expect(origin.textContent()).resolves.toContain('hand-off from look');
      await expect(
        page.locator(`.plan-graph g[data-node-id="${grown!.nodeId}"]`).getAttribute('data-added'),
      ).resolves.toBe('true');
    } finally {
      await browser?.close();
    }
    const done = await waitForSession(fleet, sessionId, (s) => s['status'] === 'completed');
    expect(done['result']['text']).toContain('Answer 2');
    expect(done['reviews']).toEqual([
      expect.objectContaining({ round: 1, decision: 'revise', targets: ['find'] }),
      expect.objectContaining({ round: 2, decision: 'approve' }),
    ]);
    expect(tasksOf('docs', sessionId)).toHaveLength(1);
    expect(tasksOf('web', sessionId)[1]?.text).toContain('the G3, not the G2');
    expect(tasksOf('mail', sessionId)).toHaveLength(2);
  }, 120_000);
});
