/**
 * Run files in the web console, in Debian's Chromium (playwright-core), against a stand-in for
 * the gateway that serves the built console with the gateway's Content-Security-Policy and the
 * documented `/v1/sessions/{id}` (`files`), `/v1/files/{id}/content` (the key required) and a
 * streamed answer with `file-ready` / `file-refused` events. A session's PNG shows as a decoded
 * image and downloads under its name; the answer's `![chart.png](/v1/files/…/content)` is an image,
 * its pipe table a table; a CSV previews as a table; an HTML file is download-only; markup in
 * names and cells stays text; the key never appears in a URL. Screenshots go to
 * `e2e/output/console/`.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { encodePng } from '@fleet/testing';
import { launchChromium, screenshot } from './support/browser';
import {
  startConsoleFilesStub,
  type ConsoleFilesStub,
  type StubChunk,
  type StubFile,
} from './support/console-files-stub';

const KEY = 'sk-console-files-0123456789abcdef';
const SESSION_ID = 'sess-files-0001';
const PNG = { width: 64, height: 48 };
const CREATED = '2026-11-28T00:00:00.000Z';
const EXPIRES = '2026-11-29T00:00:00.000Z';

function fileId(digit: string): string {
  return `file-${digit.repeat(32)}`;
}

function runFile({
  digit,
  name,
  mediaType,
  bytes,
  extra = {},
}: {
  digit: string;
  name: string;
  mediaType: string;
  bytes: Buffer;
  extra?: Partial<StubFile['view']>;
}): StubFile {
  const id = fileId(digit);
  return {
    view: {
      id,
      name,
      mediaType,
      size: bytes.length,
      source: 'step',
      nodeId: 'chart',
      agent: 'code-agent',
      createdAt: CREATED,
      expiresAt: EXPIRES,
      url: `/v1/files/${id}/content`,
      ...extra,
    },
    bytes,
  };
}

const CSV_ROWS = Array.from(
  { length: 30 },
  (_, index) => `2026-01-${String(index + 1).padStart(2, '0')},${index}`,
);
const CSV = [
  'date,amount,note',
  '"2026-01-00","1,5","<script>window.__injected = true</script>"',
  ...CSV_ROWS.map((row) => `${row},plain`),
].join('\r\n');

const chart = runFile({
  digit: 'a',
  name: 'chart.png',
  mediaType: 'image/png',
  bytes: encodePng(PNG),
});
const sales = runFile({
  digit: 'b',
  name: 'sales.csv',
  mediaType: 'text/csv',
  bytes: Buffer.from(CSV),
});
/** An HTML file whose name holds markup (the stand-in keeps it as given; the page shows text). */
const report = runFile({
  digit: 'c',
  name: 'report<script>window.__injected = true</script>.html',
  mediaType: 'text/html',
  bytes: Buffer.from('<script>window.__injected = true</script>'),
});
const upload = runFile({
  digit: 'd',
  name: 'notes.txt',
  mediaType: 'text/plain',
  bytes: Buffer.from('first line\nsecond <b>line</b>\n'),
  extra: { source: 'attachment' },
});
delete upload.view.nodeId;
delete upload.view.agent;
/** A file the answer links to that the session does not list: its name comes from the gateway. */
const extra = runFile({
  digit: 'f',
  name: 'extra.json',
  mediaType: 'application/json',
  bytes: Buffer.from('{"total": 225.5}'),
});
/** A file only the live stream announces. */
const liveChart = runFile({
  digit: 'e',
  name: 'live.png',
  mediaType: 'image/png',
  bytes: encodePng({ width: 20, height: 10 }),
});

/** The parts of an `<img>` the checks read (the test's own code has no DOM types). */
interface ImageElement {
  decode(): Promise<void>;
  naturalWidth: number;
  naturalHeight: number;
  src: string;
}

const ANSWER = [
  'Here is the chart:',
  '',
  `![chart.png](/v1/files/${chart.view.id}/content)`,
  '',
  '| Month | Total | Note |',
  '| :--- | ---: | --- |',
  '| 2026-01 | 125.50 | <script>window.__injected = true</script> |',
  '| 2026-02 | 100.00 | <img src=x onerror=alert(1)> |',
  '',
  `The numbers are in [the data](/v1/files/${sales.view.id}/content), the sum in [this one](/v1/files/${extra.view.id}/content).`,
].join('\n');

const SESSION = {
  id: SESSION_ID,
  status: 'completed',
  createdAt: CREATED,
  updatedAt: CREATED,
  request: 'Chart the monthly totals',
  planApproval: false,
  plan: {
    nodes: [
      { id: 'chart', agent: 'code-agent', skill: 'run-python', task: 'Chart it', dependsOn: [] },
    ],
    rationale: 'a chart',
    confidence: 0.9,
  },
  nodes: {
    chart: {
      agent: 'code-agent',
      state: 'completed',
      attempts: 1,
      startedAt: CREATED,
      endedAt: CREATED,
    },
  },
  approvals: [],
  inputs: [],
  result: { text: ANSWER, citations: [], composer: 'llm', failedNodes: [] },
  error: null,
  files: [chart.view, sales.view, report.view, upload.view],
};

/** A session still running: its page follows the stream, which announces the live file. */
const LIVE_SESSION_ID = 'sess-files-live';
const LIVE_SESSION = {
  ...SESSION,
  id: LIVE_SESSION_ID,
  status: 'running',
  request: 'Chart it while I watch',
  nodes: { chart: { agent: 'code-agent', state: 'running', attempts: 1, startedAt: CREATED } },
  result: null,
  files: [],
};

function chunk(delta: Record<string, unknown>, fleet?: Record<string, unknown>): StubChunk {
  return {
    id: 'chatcmpl-files',
    object: 'chat.completion.chunk',
    created: 0,
    model: 'fleet-reasoning',
    choices: [{ index: 0, delta, finish_reason: null }],
    ...(fleet === undefined ? {} : { fleet }),
  };
}

const LIVE_FILE = { ...liveChart.view, sha256: '0'.repeat(64) };
const STREAM: StubChunk[] = [
  chunk({ reasoning_content: 'chart made\n' }, { type: 'file-ready', file: LIVE_FILE }),
  chunk(
    { reasoning_content: 'a file was refused\n' },
    {
      type: 'file-refused',
      nodeId: 'chart',
      agent: 'code-agent',
      name: 'tool.exe',
      reason: 'tool.exe (application/x-msdownload) is not a kind of file the fleet keeps',
    },
  ),
  chunk({ content: `The live chart: ![live.png](/v1/files/${liveChart.view.id}/content)` }),
  chunk({}, { type: 'run-result', citations: [], files: [LIVE_FILE] }),
];

/** The decoded size of the first image matching `selector`, once it has loaded. */
async function imageSize(page: Page, selector: string): Promise<{ width: number; height: number }> {
  const image = page.locator(selector).first();
  await image.waitFor();
  // decode() settles once the picture is decoded, and fails for bytes that are no image.
  return image.evaluate(async (element) => {
    const img = element as unknown as ImageElement;
    await img.decode();
    return { width: img.naturalWidth, height: img.naturalHeight };
  });
}

describe('run files in the web console (Chromium, a gateway stand-in)', () => {
  let stub: ConsoleFilesStub;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const problems: string[] = [];
  const requestedUrls: string[] = [];

  beforeAll(async () => {
    stub = await startConsoleFilesStub({
      key: KEY,
      sessions: { [SESSION_ID]: SESSION, [LIVE_SESSION_ID]: LIVE_SESSION },
      files: [chart, sales, report, upload, extra, liveChart],
      stream: STREAM,
    });
    browser = await launchChromium();
    context = await browser.newContext({
      viewport: { width: 1280, height: 900 },
      acceptDownloads: true,
    });
    page = await context.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('dialog', (dialog) => {
      problems.push(`dialog: ${dialog.message()}`);
      void dialog.dismiss();
    });
    page.on('request', (request) => requestedUrls.push(request.url()));

    await page.goto(`${stub.url}/console/`);
    await page.getByLabel('API key').fill(KEY);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Sessions' }).waitFor();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await stub?.close();
  });

  it("lists the session's files and shows its PNG as a decoded image", async () => {
    await page.goto(`${stub.url}/console/sessions/${SESSION_ID}`);
    await page.getByRole('heading', { name: 'Files' }).waitFor();
    const card = page.locator(`.run-file[data-file-id="${chart.view.id}"]`);
    await expect(card.textContent()).resolves.toMatch(
      /chart\.png.*image\/png.*step chart \(code-agent\).*kept until/s,
    );
    expect(await imageSize(page, `.run-file[data-file-id="${chart.view.id}"] img`)).toEqual(PNG);
    await expect(
      card
        .locator('img')
        .evaluate((element) => (element as unknown as ImageElement).src.slice(0, 22)),
    ).resolves.toBe('data:image/png;base64,');
    await expect(
      page.locator(`.run-file[data-file-id="${upload.view.id}"]`).textContent(),
    ).resolves.toContain('attachment');
    await screenshot(page, 'files-01-session');
  });

  it('downloads the PNG under its name through the key', async () => {
    const link = page.locator(`.run-file[data-file-id="${chart.view.id}"] a.file-download`);
    await expect(link.textContent()).resolves.toBe('Download chart.png');
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
    expect(download.suggestedFilename()).toBe('chart.png');
    const saved = await download.path();
    expect(Buffer.compare(await readFile(saved), chart.bytes)).toBe(0);
  });

  it("renders the answer's image, its pipe table and its file link; markup stays text", async () => {
    const answer = page.locator('.answer');
    expect(await imageSize(page, `.answer img[data-file-id="${chart.view.id}"]`)).toEqual(PNG);
    await expect(answer.locator('img').first().getAttribute('alt')).resolves.toBe('chart.png');
    const table = answer.locator('table.answer-table');
    await expect(table.locator('th').allTextContents()).resolves.toEqual([
      'Month',
      'Total',
      'Note',
    ]);
    await expect(table.locator('tbody tr').count()).resolves.toBe(2);
    await expect(
      table.locator('tbody tr').first().locator('td').last().textContent(),
    ).resolves.toBe('<script>window.__injected = true</script>');
    await expect(
      table.locator('tbody tr').first().locator('td').nth(1).getAttribute('class'),
    ).resolves.toBe('align-right');
    // Only the run file's image is an image: the cell's <img onerror> is text.
    await expect(answer.locator('img').count()).resolves.toBe(1);

    const link = answer.locator(`a.file-download[data-file-id="${sales.view.id}"]`);
    await expect(link.textContent()).resolves.toBe('the data');
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
    expect(download.suggestedFilename()).toBe('sales.csv');
    expect((await readFile(await download.path())).toString()).toBe(CSV);

    const unlisted = answer.locator(`a.file-download[data-file-id="${extra.view.id}"]`);
    const [saved] = await Promise.all([page.waitForEvent('download'), unlisted.click()]);
    expect(saved.suggestedFilename()).toBe('extra.json');
    // The link is no page change: the session stays on screen.
    expect(new URL(page.url()).pathname).toBe(`/console/sessions/${SESSION_ID}`);
  });

  it('previews the CSV as a table of its first rows, saying how many there are', async () => {
    const card = page.locator(`.run-file[data-file-id="${sales.view.id}"]`);
    await card.getByText('Preview the table').click();
    const table = card.locator('table.file-table');
    await table.waitFor();
    await expect(table.locator('th').allTextContents()).resolves.toEqual([
      'date',
      'amount',
      'note',
    ]);
    await expect(table.locator('tbody tr').count()).resolves.toBe(19);
    const first = table.locator('tbody tr').first().locator('td');
    await expect(first.allTextContents()).resolves.toEqual([
      '2026-01-00',
      '1,5',
      '<script>window.__injected = true</script>',
    ]);
    await expect(card.textContent()).resolves.toContain('The first 20 of 32 rows');
    await screenshot(page, 'files-02-csv-preview');
  });

  it('previews a text file as text: its markup is not interpreted', async () => {
    const card = page.locator(`.run-file[data-file-id="${upload.view.id}"]`);
    await card.getByText('Preview the text').click();
    await expect(card.locator('pre.preview').textContent()).resolves.toBe(
      'first line\nsecond <b>line</b>\n',
    );
    await expect(card.locator('pre.preview b').count()).resolves.toBe(0);
  });

  it('never shows an HTML file: its name is text and it is download-only', async () => {
    const card = page.locator(`.run-file[data-file-id="${report.view.id}"]`);
    await expect(card.locator('.run-file-name').textContent()).resolves.toBe(report.view.name);
    await expect(card.textContent()).resolves.toContain('Download only');
    await expect(card.locator('img, iframe, object, embed, details').count()).resolves.toBe(0);
    expect(stub.contentRequests.get(report.view.id)).toBeUndefined();
    expect(await page.evaluate('window.__injected')).toBeUndefined();
    await expect(page.locator('script:not([src])').count()).resolves.toBe(0);
  });

  it('shows files as a streamed run announces them, and refused ones as a notice', async () => {
    await page.goto(`${stub.url}/console/ask`);
    await page.getByLabel('Question').fill('Chart it live');
    await page.getByLabel('Route').selectOption('reasoning');
    await page.getByRole('button', { name: 'Ask' }).click();
    const files = page.locator('section.run-files');
    await files.getByRole('heading', { name: 'Files' }).waitFor();
    expect(
      await imageSize(page, `section.run-files img[data-file-id="${liveChart.view.id}"]`),
    ).toEqual({
      width: 20,
      height: 10,
    });
    await expect(
      files.locator('.files-refused').textContent({ timeout: 10_000 }),
    ).resolves.toContain(
      'tool.exe was not kept (step chart, code-agent): tool.exe (application/x-msdownload) is not a kind of file the fleet keeps',
    );
    expect(await imageSize(page, `.answer img[data-file-id="${liveChart.view.id}"]`)).toEqual({
      width: 20,
      height: 10,
    });
    // The run's result lists the same file again: it is shown once.
    await page.locator('.answer[aria-busy="false"]').waitFor();
    await expect(files.locator('.run-file').count()).resolves.toBe(1);
    await screenshot(page, 'files-03-live');
  });

  it("shows a followed session's files as its stream announces them", async () => {
    await page.goto(`${stub.url}/console/sessions/${LIVE_SESSION_ID}`);
    const files = page.locator('section.run-files');
    await files.getByRole('heading', { name: 'Files' }).waitFor();
    expect(
      await imageSize(page, `section.run-files img[data-file-id="${liveChart.view.id}"]`),
    ).toEqual({ width: 20, height: 10 });
    await expect(files.locator('.files-refused').textContent()).resolves.toContain(
      'tool.exe was not kept',
    );
    await expect(
      files.locator(`a.file-download[data-file-id="${liveChart.view.id}"]`).textContent(),
    ).resolves.toBe('Download live.png');
  });

  it('sent the key only in headers, broke no CSP rule and ran no injected script', async () => {
    expect(stub.unauthorizedContentRequests).toBe(0);
    expect(requestedUrls.filter((url) => url.includes(KEY))).toEqual([]);
    expect(problems).toEqual([]);
    expect(await page.evaluate('window.__injected')).toBeUndefined();
  });
});
