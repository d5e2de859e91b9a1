// Imported first by main.ts: telemetry must start before http and express are loaded so that
// they get instrumented (docs/tracing.md §3). Configuration is loaded here for the same reason.
import { exitOnConfigError } from '@fleet/config';
import { startTelemetry, telemetryOptionsFromConfig } from '@fleet/telemetry';
import { loadOrchestratorConfig } from './config';

/** The orchestrator's configuration, loaded once at boot. */
export const config = exitOnConfigError('orchestrator', () => loadOrchestratorConfig());

/** The orchestrator continues the trace the gateway started (W3C traceparent and baggage). */
export const telemetry = startTelemetry(
  telemetryOptionsFromConfig(config, { serviceName: 'orchestrator' }),
);
