/**
 * Files a run makes reach the person, end to end: gateway, orchestrator, planner, the real RAG
 * agent (which keeps the files in its embedded PostgreSQL) and the real code agent (bubblewrap,
 * pandas and matplotlib) as processes, real Redis, a scripted model as planner, code writer and
 * composer, and a chart agent built on `@a2a-js/sdk` alone. A person uploads `sales.csv`, asks for
 * a chart, approves the program, and gets a PNG that decodes — through the `openai` SDK's chat
 * completions and Files API, through the Responses API, and in the console in Chromium. The
 * foreign agent's file part reaches the person the same way; the files it sends that must not be
 * trusted (a path for a name, HTML and SVG with script, a PNG that is not one) are cleaned, served
 * only as downloads, or refused; another tenant's key never reads them; an attachment in the
 * request reaches the code step at `/data`.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import type { Browser, Page } from 'playwright-core';
import type { Plan } from '@fleet/a2a';
import {
  CHART_AGENT_CARD,
  createChartExecutor,
  decodePng,
  defaultChartFiles,
  startScriptedOpenAI,
  startSdkAgent,
  type ScriptedOpenAI,
  type ScriptedReply,
  type SdkAgent,
} from '@fleet/testing';
import { launchChromium, screenshot } from './support/browser';

import { gatewayApi, streamChat, type FleetEvent, type Json } from './support/gateway-api';
import { E2E_INTERNAL_TOKEN, startFleet, type RunningFleet } from './support/start-fleet';

const RUN = randomUUID().slice(0, 8);
const TENANT = `files-${RUN}`;
const KEY = 'sk-e2e-files-0123456789abcdef';
const OTHER_TENANT = `files-other-${RUN}`;
const OTHER_KEY = 'sk-e2e-files-other-0123456789';

const SALES = [
  'date,amount',
  '2026-01-05,100',
  '2026-01-20,25.5',
  '2026-02-03,40',
  '2026-02-28,60',
  '2026-03-15,7',
  '',
].join('\n');

/** The program a person would write: pandas for the totals, matplotlib for the chart. */
function chartProgram(file: string): string {
  return [
    'import matplotlib',
    "matplotlib.use('Agg')",
    'import matplotlib.pyplot as plt',
    'import pandas as pd',
    `df = pd.read_csv('/data/${file}', parse_dates=['date'])`,
    "totals = df.groupby(df['date'].dt.strftime('%Y-%m'))['amount'].sum()",
    "totals.to_csv('monthly.csv', header=['total'], index_label='month')",
    "ax = totals.plot(kind='bar', title='Monthly totals')",
    "ax.set_ylabel('amount')",
    'plt.tight_layout()',
    "plt.savefig('chart.png', dpi=80)",
    'print(totals.to_string())',
    '',
  ].join('\n');
}

const COMPOSED = 'Here is the chart of the monthly totals.';

/** Files the foreign agent sends beside its chart: none of them may be trusted. */
const HOSTILE_FILES = [
  { filename: '../../etc/passwd', mediaType: 'text/plain', bytes: Buffer.from('root:x:0:0\n') },
  {
    filename: 'report.html',
    mediaType: 'text/html',
    bytes: Buffer.from('<html><body><script>alert(document.cookie)</script></body></html>'),
  },
  {
    filename: 'logo.svg',
    mediaType: 'image/svg+xml',
    bytes: Buffer.from(
      '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script><circle r="4"/></svg>',
    ),
  },
  { filename: 'fake.png', mediaType: 'image/png', bytes: Buffer.from('GIF89a not a png at all') },
];

function codePlan(task: string): Plan {
  const file = task.includes('q3-sales.csv') ? 'q3-sales.csv' : 'sales.csv';
  return {
    nodes: [
      {
        id: 'chart',
        agent: 'code-agent',
        skill: 'run-python',
        task,
        dependsOn: [],
        files: [file],
      },
    ],
    rationale: 'a chart from the sales figures',
    confidence: 0.9,
  };
}

function foreignPlan(task: string): Plan {
  return {
    nodes: [{ id: 'draw', agent: 'chart-studio', skill: 'draw-chart', task, dependsOn: [] }],
    rationale: 'the chart studio draws it',
    confidence: 0.9,
  };
}

function schemaName(request: unknown): string | undefined {
  const format = (request as { response_format?: { json_schema?: { name?: unknown } } })
    .response_format;
  const name = format?.json_schema?.name;
  return typeof name === 'string' ? name : undefined;
}

/** The file events of a stream. */
function readyFiles(events: readonly FleetEvent[]): Json[] {
  return events
    .filter((event) => event.type === 'file-ready')
    .map((event) => event['file'] as Json);
}

describe('files a run makes, from the agent to the person', () => {
  let llm: ScriptedOpenAI;
  let chartAgent: SdkAgent;
  let fleet: RunningFleet;
  let client: OpenAI;
  let otherClient: OpenAI;
  /** The planner prompts the scripted model received, to see the attachments named. */
  const plannerPrompts: string[] = [];

  beforeAll(async () => {
    llm = await startScriptedOpenAI({
      respond: (recorded, context): ScriptedReply => {
        const body = recorded.body as { messages?: { role: string; content: unknown }[] };
        const first = body.messages?.[0]?.content;
        const system = typeof first === 'string' ? first : JSON.stringify(first ?? '');
        const prompt = JSON.stringify(body.messages ?? []);
        if (system.includes('self-contained Python')) {
          const file = prompt.includes('q3-sales.csv') ? 'q3-sales.csv' : 'sales.csv';
          return { content: `\`\`\`python\n${chartProgram(file)}\`\`\`` };
        }
        const schema = schemaName(context.request);
        if (schema === 'approval_instructions') {
          return { json: { mode: 'enhance', effectiveTask: '' } };
        }
        if (schema === 'user_memory') return { json: { facts: {}, preferences: {} } };
        if (context.jsonSchema !== undefined) {
          if (JSON.stringify(context.jsonSchema).includes('"nodes"')) {
            plannerPrompts.push(prompt);
            const task = context.lastUserMessage;
            return { json: task.includes('chart studio') ? foreignPlan(task) : codePlan(task) };
          }
          return {};
        }
        return { content: COMPOSED };
      },
    });
    chartAgent = await startSdkAgent({
      ...CHART_AGENT_CARD,
      executor: createChartExecutor({ files: () => [...defaultChartFiles(), ...HOSTILE_FILES] }),
      token: E2E_INTERNAL_TOKEN,
    });
    fleet = await startFleet({
      env: { OPENAI_BASE_URL: llm.baseURL, OPENAI_API_KEY: 'sk-e2e-upstream' },
      serviceEnv: {
        orchestrator: { HITL_TIMEOUT_SECONDS: '300', NODE_TIMEOUT_MS: '60000' },
        gateway: {
          GATEWAY_API_KEYS: `${KEY}:${TENANT},${OTHER_KEY}:${OTHER_TENANT}`,
          GATEWAY_MAX_ATTACHMENT_BYTES: '65536',
        },
      },
      agents: [],
      agentUrls: [chartAgent.url],
      ragAgent: true,
      agentServices: { 'code-agent': { CODE_AGENT_TIMEOUT_MS: '30000' } },
    });
    client = new OpenAI({ apiKey: KEY, baseURL: fleet.baseURL, maxRetries: 0 });
    otherClient = new OpenAI({ apiKey: OTHER_KEY, baseURL: fleet.baseURL, maxRetries: 0 });
    const form = new FormData();
    form.append('file', new Blob([SALES], { type: 'text/csv' }), 'sales.csv');
    const uploaded = await fetch(`${fleet.baseURL}/documents`, {
      method: 'POST',
      body: form,
      headers: { authorization: `Bearer ${KEY}` },
    });
    expect(uploaded.status).toBe(201);
  }, 240_000);

  afterAll(async () => {
    await fleet?.stop();
    await chartAgent?.stop();
    await llm?.close();
  }, 60_000);

  /** Approves the first approval the stream asks for, through the sessions API. */
  function approveWhenAsked(event: FleetEvent, sessionId: string): Promise<void> | void {
    if (event.type !== 'approval-required') return;
    return gatewayApi(
      { ...fleet, apiKey: KEY },
      `/sessions/${sessionId}/approvals/${String(event['approvalId'])}`,
      {
        method: 'POST',
        body: JSON.stringify({ decision: 'approve' }),
      },
    ).then(({ status }) => {
      expect(status).toBe(200);
    });
  }

  let chartSessionId = '';
  let chartFileId = '';

  it('turns an uploaded CSV into a chart: approve the program, read the PNG through the Files API', async () => {
    const chat = await streamChat(client, {
      message: 'Plot the monthly totals from sales.csv as a bar chart.',
      onEvent: (event, so) => approveWhenAsked(event, so.sessionId),
    });
    expect(chat.error).toBeUndefined();
    chartSessionId = chat.sessionId;
    const ready = readyFiles(chat.events);
    const chart = ready.find((file) => file['name'] === 'chart.png');
    expect(chart).toMatchObject({ mediaType: 'image/png', source: 'step', nodeId: 'chart' });
    expect(ready.map((file) => file['name'])).toContain('monthly.csv');
    chartFileId = String(chart?.['id']);

    // The answer shows the picture and the table, and links the whole CSV.
    expect(chat.content).toContain(COMPOSED);
    expect(chat.content).toContain(`![chart.png](/v1/files/${chartFileId}/content)`);
    expect(chat.content).toMatch(/\| *month *\| *total *\|/);
    const result = chat.events.find((event) => event.type === 'run-result');
    expect((result?.['files'] as Json[]).map((file) => file['id'])).toContain(chartFileId);

    // The official SDK reads it as an OpenAI file.
    const info = await client.files.retrieve(chartFileId);
    expect(info).toMatchObject({ id: chartFileId, object: 'file', filename: 'chart.png' });
    const content = await client.files.content(chartFileId);
    expect(content.headers.get('content-type')).toBe('image/png');
    expect(content.headers.get('x-content-type-options')).toBe('nosniff');
    const bytes = Buffer.from(await content.arrayBuffer());
    expect(bytes.length).toBe(info.bytes);
    const png = decodePng(bytes);
    expect(png.width).toBeGreaterThan(100);
    expect(png.height).toBeGreaterThan(100);

    // The session lists it, with the step that made it.
    const { body: session } = await gatewayApi(
      { ...fleet, apiKey: KEY },
      `/sessions/${chartSessionId}`,
    );
    expect((session['files'] as Json[]).map((file) => file['name'])).toEqual(
      expect.arrayContaining(['chart.png', 'monthly.csv']),
    );
  }, 180_000);

  it('never shows one tenant’s file to another', async () => {
    const error = await otherClient.files.retrieve(chartFileId).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    const content = await fetch(`${fleet.baseURL}/files/${chartFileId}/content`, {
      headers: { authorization: `Bearer ${OTHER_KEY}` },
    });
    expect(content.status).toBe(404);
    const session = await fetch(`${fleet.baseURL}/sessions/${chartSessionId}`, {
      headers: { authorization: `Bearer ${OTHER_KEY}` },
    });
    expect(session.status).toBe(404);
  });

  it('answers the Responses API with the chart: annotations and the fleet object name it', async () => {
    const { data: stream, response } = await client.responses
      .create(
        {
          model: 'fleet-orchestration',
          input: 'Plot the monthly totals from sales.csv for the Responses client.',
          stream: true,
        },
        { headers: { 'X-Routing-Mode': 'orchestration' } },
      )
      .withResponse();
    const sessionId = response.headers.get('x-session-id') ?? '';
    expect(sessionId).not.toBe('');
    // Approve through the sessions API as soon as the run asks.
    const approving = (async () => {
      for (let attempt = 0; attempt < 600; attempt += 1) {
        const { body } = await gatewayApi(
          { ...fleet, apiKey: KEY },
          `/sessions/${sessionId}/approvals`,
        );
        const pending = ((body['data'] ?? body['approvals'] ?? []) as Json[]).find(
          (approval) => approval['status'] === 'pending',
        );
        if (pending !== undefined) {
          const decided = await gatewayApi(
            { ...fleet, apiKey: KEY },
            `/sessions/${sessionId}/approvals/${String(pending['id'])}`,
            { method: 'POST', body: JSON.stringify({ decision: 'approve' }) },
          );
          expect(decided.status).toBe(200);
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error('the Responses run never asked for approval');
    })();
    let completed: Json | undefined;
    for await (const event of stream) {
      if (event.type === 'response.completed') completed = event.response;
    }
    await approving;
    expect(completed?.['status']).toBe('completed');
    const files = (completed?.['fleet'] as Json | undefined)?.['files'] as Json[] | undefined;
    const chart = files?.find((file) => file['name'] === 'chart.png');
    expect(chart).toBeDefined();
    const message = (completed?.['output'] as Json[]).find((item) => item['type'] === 'message');
    const text = (message?.['content'] as Json[])[0] as Json;
    expect(String(text['text'])).toContain(`/v1/files/${String(chart?.['id'])}/content`);
    expect(JSON.stringify(text['annotations'])).toContain(String(chart?.['id']));
    const content = await client.files.content(String(chart?.['id']));
    decodePng(Buffer.from(await content.arrayBuffer()));
  }, 180_000);

  it('brings a foreign agent’s file part to the person; untrusted files cleaned, downloaded or refused', async () => {
    const chat = await streamChat(client, {
      message: 'Ask the chart studio to draw the sales chart.',
    });
    expect(chat.error).toBeUndefined();
    const ready = readyFiles(chat.events);
    const byName = new Map(ready.map((file) => [String(file['name']), file]));
    expect(byName.get('sales chart.png')).toMatchObject({
      mediaType: 'image/png',
      agent: 'chart-studio',
    });
    // A path for a name keeps only its last part; nothing is written outside the store.
    expect(byName.has('passwd')).toBe(true);
    expect([...byName.keys()].some((name) => name.includes('/') || name.includes('..'))).toBe(
      false,
    );
    // A PNG that is not one is refused, and the run says so.
    expect(byName.has('fake.png')).toBe(false);
    const refused = chat.events.filter((event) => event.type === 'file-refused');
    expect(refused.map((event) => event['name'])).toContain('fake.png');

    const picture = await client.files.content(String(byName.get('sales chart.png')?.['id']));
    expect(decodePng(Buffer.from(await picture.arrayBuffer()))).toMatchObject({
      width: 120,
      height: 80,
    });
    // HTML and SVG with script are only ever downloads, never rendered on the gateway's origin.
    for (const name of ['report.html', 'logo.svg']) {
      const file = byName.get(name);
      expect(file).toBeDefined();
      const served = await fetch(`${fleet.baseURL}/files/${String(file?.['id'])}/content`, {
        headers: { authorization: `Bearer ${KEY}` },
      });
      expect(served.status).toBe(200);
      expect(served.headers.get('content-disposition')).toMatch(/^attachment/);
      expect(served.headers.get('x-content-type-options')).toBe('nosniff');
      expect(served.headers.get('content-security-policy')).toContain('sandbox');
      await served.arrayBuffer();
    }
    // The answer shows the picture, and links (never inlines) the active files.
    expect(chat.content).toMatch(
      /!\[sales chart\.png\]\(\/v1\/files\/file-[0-9a-f]{32}\/content\)/,
    );
    expect(chat.content).not.toMatch(/!\[report\.html\]/);
    expect(chat.content).not.toMatch(/!\[logo\.svg\]/);
  }, 120_000);

  it('sends a file attached to the chat message to the code step, and the planner knows of it', async () => {
    const attached = Buffer.from(SALES.replace('2026-03-15,7', '2026-03-15,70')).toString('base64');
    const { data: stream, response } = await client.chat.completions
      .create(
        {
          model: 'fleet-orchestration',
          stream: true,
          messages: [
            {
              role: 'user',
              content: [
                { type: 'text', text: 'Plot the monthly totals of the attached q3-sales.csv.' },
                {
                  type: 'file',
                  file: { filename: 'q3-sales.csv', file_data: `data:text/csv;base64,${attached}` },
                },
              ],
            },
          ],
        },
        { headers: { 'X-Routing-Mode': 'orchestration' } },
      )
      .withResponse();
    const sessionId = response.headers.get('x-session-id') ?? '';
    const events: FleetEvent[] = [];
    let content = '';
    for await (const chunk of stream) {
      content += chunk.choices[0]?.delta?.content ?? '';
      const event = (chunk as unknown as { fleet?: FleetEvent }).fleet;
      if (event === undefined) continue;
      events.push(event);
      await approveWhenAsked(event, sessionId);
    }
    const files = readyFiles(events);
    expect(files.find((file) => file['name'] === 'q3-sales.csv')).toMatchObject({
      source: 'attachment',
    });
    expect(plannerPrompts.at(-1)).toContain('q3-sales.csv');
    const { body: session } = await gatewayApi({ ...fleet, apiKey: KEY }, `/sessions/${sessionId}`);
    const stdout = String((session['nodes'] as Json)['chart']?.['data']?.['stdout'] ?? '');
    expect(stdout).toMatch(/2026-03\s+70(\.0)?/);
    expect(content).toContain('![chart.png]');
  }, 180_000);

  it('refuses an attachment over the limit, and a URL it would have to fetch', async () => {
    const big = Buffer.alloc(70_000, 'a').toString('base64');
    const tooBig = await client.chat.completions
      .create(
        {
          model: 'fleet-orchestration',
          messages: [
            {
              role: 'user',
              content: [
                { type: 'text', text: 'Read this.' },
                {
                  type: 'file',
                  file: { filename: 'big.txt', file_data: `data:text/plain;base64,${big}` },
                },
              ],
            },
          ],
        },
        { headers: { 'X-Routing-Mode': 'orchestration' } },
      )
      .catch((caught: unknown) => caught);
    expect(tooBig).toBeInstanceOf(OpenAI.APIError);
    expect((tooBig as InstanceType<typeof OpenAI.APIError>).status).toBe(413);

    const url = await client.chat.completions
      .create(
        {
          model: 'fleet-orchestration',
          messages: [
            {
              role: 'user',
              content: [
                { type: 'text', text: 'What is in this picture?' },
                {
                  type: 'image_url',
                  image_url: { url: 'http://169.254.169.254/latest/meta-data' },
                },
              ],
            },
          ],
        },
        { headers: { 'X-Routing-Mode': 'orchestration' } },
      )
      .catch((caught: unknown) => caught);
    expect(url).toBeInstanceOf(OpenAI.BadRequestError);
  });

  describe('in the console (Chromium)', () => {
    let browser: Browser;
    let page: Page;
    const problems: string[] = [];

    beforeAll(async () => {
      browser = await launchChromium();
      page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
      page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    }, 60_000);

    afterAll(async () => {
      await browser?.close();
    });

    it('shows the chart inline on the session page, and offers every file for download', async () => {
      await page.goto(`${fleet.gateway.url}/console/`);
      await page.getByLabel('API key').fill(KEY);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Sessions' }).waitFor();
      await page.goto(`${fleet.gateway.url}/console/sessions/${chartSessionId}`);
      const image = page.locator(`img[alt="chart.png"]`).first();
      await image.waitFor({ timeout: 15_000 });
      // The picture is fetched with the key and shown from memory: it has pixels once loaded.
      let width = 0;
      for (let attempt = 0; attempt < 100 && width === 0; attempt += 1) {
        width = await image.evaluate(
          (element) => (element as unknown as { naturalWidth: number }).naturalWidth,
        );
        if (width === 0) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(width).toBeGreaterThan(100);
      const download = page
        .getByRole('button', { name: /monthly\.csv/ })
        .or(page.getByRole('link', { name: /monthly\.csv/ }))
        .first();
      await download.waitFor();
      await screenshot(page, 'files-session');
      expect(problems).toEqual([]);
    }, 60_000);
  });
});
