/**
 * The child process's `instrumentation.ts`: imported first by `export-scenario.ts`, as a service's
 * `main.ts` imports its own, so `http` is patched before anything else loads it. Options come from
 * argv (see `export-scenario.test.ts`).
 */
import { parseArgs } from 'node:util';
import { startTelemetry } from '../index';

const { values } = parseArgs({
  options: {
    endpoint: { type: 'string' },
    protocol: { type: 'string', default: 'http/protobuf' },
    distrust: { type: 'boolean', default: false },
    header: { type: 'string', multiple: true, default: [] },
  },
});

const headers = Object.fromEntries(
  values.header.map((pair) => {
    const at = pair.indexOf('=');
    return [pair.slice(0, at), pair.slice(at + 1)];
  }),
);

export const telemetry = startTelemetry({
  serviceName: 'scenario-service',
  endpoint: values.endpoint,
  protocol: values.protocol === 'http/json' ? 'http/json' : 'http/protobuf',
  headers,
  trustInboundTraceContext: !values.distrust,
  // Long enough that only shutdown() exports: the test sees one complete batch.
  exportIntervalMs: 60_000,
});
