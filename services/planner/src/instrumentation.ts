// Imported first by main.ts: telemetry must start before http and express are loaded so that
// they get instrumented (docs/tracing.md §3). Configuration is loaded here for the same reason.
import { exitOnConfigError } from '@fleet/config';
import { startTelemetry, telemetryOptionsFromConfig } from '@fleet/telemetry';
import { loadPlannerConfig } from './config';

/** The planner's configuration, loaded once at boot. */
export const config = exitOnConfigError('planner', () => loadPlannerConfig());

/** The planner is called by the orchestrator, whose trace context it continues. */
export const telemetry = startTelemetry(
  telemetryOptionsFromConfig(config, { serviceName: 'planner' }),
);
