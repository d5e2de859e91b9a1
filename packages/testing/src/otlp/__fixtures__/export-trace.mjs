// Exports one small trace with the real OTLP exporters, in a plain Node process: the exporters load
// `http` with a dynamic import(), which jest's CommonJS runtime cannot do.
// Usage: node export-trace.mjs [--json URL] [--proto URL] [--gzip] [--batch]
import { parseArgs } from 'node:util';
import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';

async function main() {
  const { values } = parseArgs({
    options: {
      json: { type: 'string' },
      proto: { type: 'string' },
      gzip: { type: 'boolean', default: false },
      batch: { type: 'boolean', default: false },
    },
  });
  const compression = values.gzip ? 'gzip' : 'none';
  const exporters = [];
  if (values.json) exporters.push(new JsonExporter({ url: values.json, compression }));
  if (values.proto) exporters.push(new ProtoExporter({ url: values.proto, compression }));
  // One processor feeding every exporter, so both encodings carry the very same spans.
  const fanOut = {
    export(spans, done) {
      let pending = exporters.length;
      let failed;
      for (const exporter of exporters) {
        exporter.export(spans, (result) => {
          if (result.code !== 0) failed = result;
          pending -= 1;
          if (pending === 0) done(failed ?? result);
        });
      }
    },
    async shutdown() {
      await Promise.all(exporters.map((exporter) => exporter.shutdown()));
    },
    async forceFlush() {
      await Promise.all(exporters.map((exporter) => exporter.forceFlush?.()));
    },
  };
  const processor = values.batch ? new BatchSpanProcessor(fanOut) : new SimpleSpanProcessor(fanOut);
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({
      'service.name': 'capture-test',
      'openinference.project.name': 'agent-fleet',
      'deployment.replica': 2,
    }),
    spanProcessors: [processor],
  });
  const tracer = provider.getTracer('fleet-test-scope', '1.2.3');
  const root = tracer.startSpan('gateway.request', {
    kind: SpanKind.SERVER,
    attributes: {
      'input.value': 'hello',
      'llm.token_count.prompt': 42,
      'fleet.streaming': true,
      'retrieval.score': 0.75,
      'tag.tags': ['alpha', 'beta'],
    },
  });
  const child = tracer.startSpan(
    'orchestrator.plan',
    { kind: SpanKind.CLIENT, attributes: { 'graph.node.id': 'n1', 'plan.size': 3 } },
    trace.setSpan(context.active(), root),
  );
  child.addEvent('plan.chosen', { 'plan.nodes': 3 });
  const grandchild = tracer.startSpan('agent.run', {}, trace.setSpan(context.active(), child));
  grandchild.setStatus({ code: SpanStatusCode.ERROR, message: 'agent failed' });
  grandchild.end();
  child.end();
  root.setStatus({ code: SpanStatusCode.OK });
  root.end();
  await provider.forceFlush();
  await provider.shutdown();
  process.stdout.write('EXPORTED\n');
}

main().catch((error) => {
  process.stderr.write(`${error && error.stack ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
