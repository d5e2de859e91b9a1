// Imported first by main.ts: telemetry must start before http and express are loaded so that
// they get instrumented (docs/tracing.md §3). Configuration is loaded here for the same reason.
import { exitOnConfigError } from '@fleet/config';
import { startTelemetry, telemetryOptionsFromConfig } from '@fleet/telemetry';
import { loadToolsAgentConfig } from './config';

/** The tools agent's configuration, loaded once at boot. */
export const config = exitOnConfigError('tools-agent', () => loadToolsAgentConfig());

/** The tools agent is called by the orchestrator, whose trace context it continues. */
export const telemetry = startTelemetry(
  telemetryOptionsFromConfig(config, { serviceName: 'tools-agent' }),
);
