import { describe, expect, it } from '@jest/globals';
import { parseJson } from '@fleet/errors';
import { z } from 'zod';
import { createInMemoryTracing } from './__fixtures__/in-memory-tracing';
import { createLogger } from './create-logger';
import { withBaggage } from './with-baggage';

const { tracer } = createInMemoryTracing();

function capture(options: { level?: string } = {}) {
  const lines: string[] = [];
  const logger = createLogger({
    service: 'planner',
    level: options.level,
    destination: { write: (line: string) => void lines.push(line) },
  });
  const records = () =>
    lines.map((line) =>
      parseJson({ text: line, schema: z.record(z.string(), z.unknown()), subject: 'A log line' }),
    );
  return { logger, records };
}

describe('createLogger', () => {
  it('writes JSON lines with service, level and time, and no trace ids outside a span', () => {
    const { logger, records } = capture();
    logger.info({ nodes: 3 }, 'plan ready');
    const [record] = records();
    expect(record).toMatchObject({
      service: 'planner',
      level: 'info',
      nodes: 3,
      msg: 'plan ready',
    });
    expect(typeof record?.['time']).toBe('string');
    expect(record).not.toHaveProperty('trace_id');
    expect(record).not.toHaveProperty('span_id');
  });

  it('adds trace_id and span_id of the active span, and session_id from the baggage', () => {
    const { logger, records } = capture();
    const ids = withBaggage({ 'session.id': 's-9' }, () =>
      tracer.startActiveSpan('work', (span) => {
        logger.info('inside');
        span.end();
        return span.spanContext();
      }),
    );
    expect(records()[0]).toMatchObject({
      trace_id: ids.traceId,
      span_id: ids.spanId,
      session_id: 's-9',
    });
  });

  it('redacts authorization headers, API keys and tokens', () => {
    const { logger, records } = capture();
    logger.info({
      req: { headers: { authorization: 'Bearer sk-live-1', host: 'gateway' } },
      headers: { authorization: 'Bearer sk-live-2' },
      authorization: 'Bearer sk-live-3',
      upstream: { apiKey: 'sk-live-4', api_key: 'sk-live-5', token: 'internal-6' },
    });
    const text = JSON.stringify(records()[0]);
    for (const secret of [
      'sk-live-1',
      'sk-live-2',
      'sk-live-3',
      'sk-live-4',
      'sk-live-5',
      'internal-6',
    ]) {
      expect(text).not.toContain(secret);
    }
    expect(records()[0]).toMatchObject({
      req: { headers: { authorization: '[redacted]', host: 'gateway' } },
      upstream: { apiKey: '[redacted]', api_key: '[redacted]', token: '[redacted]' },
    });
  });

  it('honours the level', () => {
    const { logger, records } = capture({ level: 'warn' });
    logger.info('dropped');
    logger.warn('kept');
    expect(records().map((record) => record['msg'])).toEqual(['kept']);
  });
});
