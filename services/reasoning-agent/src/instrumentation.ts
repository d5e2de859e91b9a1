// Imported first by main.ts: telemetry must start before http and express are loaded so that
// they get instrumented (docs/tracing.md §3). Configuration is loaded here for the same reason.
import { exitOnConfigError } from '@fleet/config';
import { startTelemetry, telemetryOptionsFromConfig } from '@fleet/telemetry';
import { loadReasoningAgentConfig } from './config';

/** The reasoning agent's configuration, loaded once at boot. */
export const config = exitOnConfigError('reasoning-agent', () => loadReasoningAgentConfig());

/** The reasoning agent is called by the gateway (and the orchestrator), whose trace it continues. */
export const telemetry = startTelemetry(
  telemetryOptionsFromConfig(config, { serviceName: 'reasoning-agent' }),
);
