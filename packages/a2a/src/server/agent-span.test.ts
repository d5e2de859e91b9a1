import { describe, expect, it } from '@jest/globals';
import { context, SpanStatusCode } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { createTestAgent } from '../__fixtures__/test-agent';
import { createMessage } from '../schemas/helpers';
import { buildAgentCard } from './build-agent-card';
import { createA2AHandler } from './create-a2a-handler';
import { InMemoryTaskStore } from './in-memory-task-store';

// In-process tracing, as in @fleet/telemetry's tests: finished spans in memory, and the
// AsyncLocalStorage context manager so the active span flows through awaits.
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
const exporter = new InMemorySpanExporter();
const tracer = new BasicTracerProvider({
  spanProcessors: [new SimpleSpanProcessor(exporter)],
}).getTracer('test');

describe('agent spans', () => {
  it('runs each turn in an AGENT span under the request span, streams included', async () => {
    exporter.reset();
    const handler = createA2AHandler({
      card: buildAgentCard({
        name: 'span-agent',
        description: 'd',
        version: '1',
        url: 'http://agent.test',
        skills: [],
      }),
      execute: createTestAgent().execute,
      store: new InMemoryTaskStore(),
      tracer,
    });
    const requestSpanIds: string[] = [];
    for (const [method, text] of [
      ['SendStreamingMessage', 'echo streamed'],
      ['SendMessage', 'fail'],
    ] as const) {
      await tracer.startActiveSpan('POST /a2a', async (span) => {
        requestSpanIds.push(span.spanContext().spanId);
        const result = await handler.handle(
          { jsonrpc: '2.0', id: 1, method, params: { message: createMessage({ parts: text }) } },
          { version: '1.0' },
        );
        if (result.type === 'stream') {
          for await (const _event of result.events) {
            // drain, as the SSE writer does inside the request
          }
        }
        span.end();
      });
    }
    const agentSpans = exporter.getFinishedSpans().filter((span) => span.name === 'span-agent');
    expect(agentSpans).toHaveLength(2);
    const [streamed, failed] = agentSpans;
    expect(streamed?.attributes).toMatchObject({
      'openinference.span.kind': 'AGENT',
      'input.value': 'echo streamed',
      'agent.name': 'span-agent',
      'a2a.task_state': 'TASK_STATE_COMPLETED',
    });
    expect(streamed?.parentSpanContext?.spanId).toBe(requestSpanIds[0]);
    expect(failed?.parentSpanContext?.spanId).toBe(requestSpanIds[1]);
    expect(failed?.status.code).toBe(SpanStatusCode.ERROR);
    expect(failed?.attributes['a2a.task_state']).toBe('TASK_STATE_FAILED');
  });
});
