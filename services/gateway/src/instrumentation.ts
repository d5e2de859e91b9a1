// Imported first by main.ts: telemetry must start before http and express are loaded so that
// they get instrumented (docs/tracing.md §3). Configuration is loaded here for the same reason.
import { exitOnConfigError } from '@fleet/config';
import { startTelemetry, telemetryOptionsFromConfig } from '@fleet/telemetry';
import { loadGatewayConfig } from './config';

/** The gateway's configuration, loaded once at boot. */
export const config = exitOnConfigError('gateway', () => loadGatewayConfig());

/**
 * The gateway is the fleet's ingress: it starts every trace and ignores clients' trace headers.
 * Its only outgoing `node:http` call is the passthrough to the upstream LLM, which its LLM span
 * already describes: that call carries `traceparent` but gets no span (docs/tracing.md §7). Its
 * incoming requests get light server spans.
 */
export const telemetry = startTelemetry({
  ...telemetryOptionsFromConfig(config, {
    serviceName: 'gateway',
    trustInboundTraceContext: false,
  }),
  outgoingHttpSpans: false,
  // Its one server span per request is recorded by `telemetry.traceRequests` (main.ts), not by
  // instrumentation-http, whose per-request work was most of tracing's cost (docs/tracing.md §7).
  lightServerSpans: true,
  // The hot paths enter no context (main.ts): nor should the exports, or every promise would pay
  // AsyncLocalStorage's hook from the first export on.
  deferContextStorage: config.traceContext === 'explicit',
});
