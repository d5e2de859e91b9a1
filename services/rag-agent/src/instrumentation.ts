// Imported first by main.ts: telemetry must start before http, express and pg are loaded so that
// they get instrumented (docs/tracing.md §3). Configuration is loaded here for the same reason.
import { exitOnConfigError } from '@fleet/config';
import { startTelemetry, telemetryOptionsFromConfig } from '@fleet/telemetry';
import { loadRagAgentConfig } from './config';

/** The RAG agent's configuration, loaded once at boot. */
export const config = exitOnConfigError('rag-agent', () => loadRagAgentConfig());

/** The RAG agent is called by the orchestrator and the gateway, whose trace context it continues. */
export const telemetry = startTelemetry(
  telemetryOptionsFromConfig(config, { serviceName: 'rag-agent' }),
);
