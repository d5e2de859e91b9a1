import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { CapturedSpan } from './captured-span';
import { type OtlpCapture, startOtlpCapture } from './start-otlp-capture';

const execFileAsync = promisify(execFile);
const EXPORT_TRACE = join(__dirname, '__fixtures__', 'export-trace.mjs');

/**
 * Exports the fixture trace (root, child, grandchild, every attribute type) with the real
 * exporters. They run in a child process: they load `http` with a dynamic import(), which jest's
 * CommonJS runtime refuses.
 */
async function exportTrace(args: string[]): Promise<void> {
  const { stdout } = await execFileAsync(process.execPath, [EXPORT_TRACE, ...args]);
  expect(stdout).toContain('EXPORTED');
}

function byName(spans: CapturedSpan[]): Record<string, CapturedSpan> {
  return Object.fromEntries(spans.map((span) => [span.name, span]));
}

function sortById(spans: CapturedSpan[]): CapturedSpan[] {
  return [...spans].sort((left, right) => left.spanId.localeCompare(right.spanId));
}

describe('startOtlpCapture', () => {
  let capture: OtlpCapture;
  let secondCapture: OtlpCapture;

  beforeEach(async () => {
    capture = await startOtlpCapture();
    secondCapture = await startOtlpCapture();
  });

  afterEach(async () => {
    await capture.close();
    await secondCapture.close();
  });

  function assertTrace(spans: CapturedSpan[]): void {
    expect(spans).toHaveLength(3);
    const {
      'gateway.request': root,
      'orchestrator.plan': child,
      'agent.run': grandchild,
    } = byName(spans);
    expect(root?.parentSpanId).toBeUndefined();
    expect(root?.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(root?.spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(new Set(spans.map((span) => span.traceId)).size).toBe(1);
    expect(child?.parentSpanId).toBe(root?.spanId);
    expect(grandchild?.parentSpanId).toBe(child?.spanId);
    expect(root?.kind).toBe(2);
    expect(child?.kind).toBe(3);
    expect(grandchild?.kind).toBe(1);
    expect(root?.attributes).toEqual({
      'input.value': 'hello',
      'llm.token_count.prompt': 42,
      'fleet.streaming': true,
      'retrieval.score': 0.75,
      'tag.tags': ['alpha', 'beta'],
    });
    expect(child?.events).toEqual([
      { name: 'plan.chosen', timeUnixNano: expect.any(BigInt), attributes: { 'plan.nodes': 3 } },
    ]);
    expect(root?.status).toEqual({ code: 1 });
    expect(grandchild?.status).toEqual({ code: 2, message: 'agent failed' });
    expect(root?.resource).toMatchObject({
      'service.name': 'capture-test',
      'openinference.project.name': 'agent-fleet',
      'deployment.replica': 2,
    });
    expect(root?.serviceName).toBe('capture-test');
    expect(root?.scope).toBe('fleet-test-scope');
    expect(root?.scopeVersion).toBe('1.2.3');
    expect(root!.endTimeUnixNano).toBeGreaterThanOrEqual(root!.startTimeUnixNano);
    expect(root!.startTimeUnixNano).toBeGreaterThan(1_600_000_000_000_000_000n);
  }

  it('decodes OTLP/JSON from the real HTTP exporter', async () => {
    await exportTrace(['--json', capture.tracesUrl]);
    const spans = await capture.waitForSpans((all) => all.length >= 3);
    assertTrace(spans);
    expect(capture.contentTypes).toContain('application/json');
  });

  it('decodes OTLP/protobuf from the real proto exporter', async () => {
    await exportTrace(['--proto', capture.tracesUrl, '--batch']);
    const spans = await capture.waitForSpans((all) => all.length >= 3);
    assertTrace(spans);
    expect(capture.contentTypes).toEqual(['application/x-protobuf']);
  });

  it('decodes the same spans identically from JSON and protobuf', async () => {
    await exportTrace(['--json', capture.tracesUrl, '--proto', secondCapture.tracesUrl, '--batch']);
    const fromJson = await capture.waitForSpans((all) => all.length >= 3);
    const fromProtobuf = await secondCapture.waitForSpans((all) => all.length >= 3);
    expect(capture.contentTypes).toEqual(['application/json']);
    expect(secondCapture.contentTypes).toEqual(['application/x-protobuf']);
    expect(sortById(fromProtobuf)).toEqual(sortById(fromJson));
  });

  it('accepts gzip-compressed exports in both encodings', async () => {
    await exportTrace(['--proto', capture.tracesUrl, '--json', secondCapture.tracesUrl, '--gzip']);
    assertTrace(await capture.waitForSpans((all) => all.length >= 3));
    assertTrace(await secondCapture.waitForSpans((all) => all.length >= 3));
    expect(capture.exports.map((item) => item.contentEncoding)).toEqual(['gzip', 'gzip', 'gzip']);
    expect(secondCapture.exports[0]).toEqual({
      contentType: 'application/json',
      contentEncoding: 'gzip',
      spanCount: 1,
    });
  });

  it('decodes a hand-written gzip OTLP/JSON body with enum names and big integers', async () => {
    const body = {
      resourceSpans: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'manual' } }] },
          scopeSpans: [
            {
              scope: { name: 'manual-scope' },
              spans: [
                {
                  traceId: '0AF7651916CD43DD8448EB211C80319C',
                  spanId: 'B7AD6B7169203331',
                  name: 'manual.span',
                  kind: 'SPAN_KIND_PRODUCER',
                  startTimeUnixNano: '1700000000000000000',
                  endTimeUnixNano: 1700000000000000,
                  attributes: [
                    { key: 'big', value: { intValue: '9007199254740993' } },
                    { key: 'small', value: { intValue: '-5' } },
                    {
                      key: 'map',
                      value: {
                        kvlistValue: { values: [{ key: 'k', value: { boolValue: false } }] },
                      },
                    },
                  ],
                  status: { code: 'STATUS_CODE_ERROR' },
                },
              ],
            },
          ],
        },
      ],
    };
    const response = await fetch(capture.tracesUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8', 'content-encoding': 'gzip' },
      body: gzipSync(JSON.stringify(body)),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({});
    expect(capture.spans).toEqual([
      {
        traceId: '0af7651916cd43dd8448eb211c80319c',
        spanId: 'b7ad6b7169203331',
        name: 'manual.span',
        kind: 4,
        startTimeUnixNano: 1700000000000000000n,
        endTimeUnixNano: 1700000000000000n,
        attributes: { big: 9007199254740993n, small: -5, map: { k: false } },
        events: [],
        links: [],
        status: { code: 2 },
        resource: { 'service.name': 'manual' },
        serviceName: 'manual',
        scope: 'manual-scope',
      },
    ]);
  });

  it('rejects other paths, other content types and undecodable bodies', async () => {
    const metrics = await fetch(`${capture.url}/v1/metrics`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(metrics.status).toBe(404);
    const text = await fetch(capture.tracesUrl, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'hi',
    });
    expect(text.status).toBe(415);
    const broken = await fetch(capture.tracesUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-protobuf' },
      body: new Uint8Array([0x0a, 0xff]),
    });
    expect(broken.status).toBe(400);
    expect(capture.spans).toEqual([]);
  });

  it('rejects waitForSpans with the names received so far on timeout', async () => {
    await expect(capture.waitForSpans((all) => all.length > 0, 50)).rejects.toThrow(
      'received 0 spans',
    );
  });
});
