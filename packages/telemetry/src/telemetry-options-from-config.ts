import { parseSamplerSettings } from './sampler-settings';
import type { TelemetryOptions } from './start-telemetry';

/**
 * The telemetry part of a service's configuration, as `@fleet/config`'s `telemetryEnv` loads it
 * (OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, OTEL_EXPORTER_OTLP_TRACES_PROTOCOL,
 * OTEL_SERVICE_NAME, PHOENIX_PROJECT_NAME, PHOENIX_API_KEY).
 */
export interface TelemetryConfig {
  otelEndpoint?: string | undefined;
  otelTracesEndpoint?: string | undefined;
  otelProtocol?: 'http/protobuf' | 'http/json' | undefined;
  otelServiceName?: string | undefined;
  phoenixProjectName?: string | undefined;
  phoenixApiKey?: string | undefined;
  /** OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG, for services that declare them. */
  otelTracesSampler?: string | undefined;
  otelTracesSamplerArg?: number | undefined;
  /** The `OPENINFERENCE_HIDE_*` flags, for services that declare them. */
  openinferenceHideInputs?: boolean | undefined;
  openinferenceHideOutputs?: boolean | undefined;
  openinferenceHideInputMessages?: boolean | undefined;
  openinferenceHideOutputMessages?: boolean | undefined;
  openinferenceHideInputText?: boolean | undefined;
  openinferenceHideOutputText?: boolean | undefined;
  openinferenceHideLlmInvocationParameters?: boolean | undefined;
}

/** What a service adds to its configuration. */
export interface TelemetryDefaults {
  /** The service's own name, used unless OTEL_SERVICE_NAME overrides it. */
  serviceName: string;
  /** Only the gateway, the fleet's ingress, passes false. @default true */
  trustInboundTraceContext?: boolean;
}

/**
 * Maps a service's loaded telemetry configuration onto {@link TelemetryOptions}, so every service's
 * `instrumentation.ts` is two lines.
 *
 * @example
 * export const telemetry = startTelemetry(telemetryOptionsFromConfig(config, { serviceName: 'planner' }));
 */
export function telemetryOptionsFromConfig(
  config: TelemetryConfig,
  { serviceName, trustInboundTraceContext = true }: TelemetryDefaults,
): TelemetryOptions {
  return {
    serviceName: config.otelServiceName ?? serviceName,
    endpoint: config.otelEndpoint,
    tracesEndpoint: config.otelTracesEndpoint,
    protocol: config.otelProtocol,
    projectName: config.phoenixProjectName,
    headers: config.phoenixApiKey ? { authorization: `Bearer ${config.phoenixApiKey}` } : undefined,
    trustInboundTraceContext,
    sampler: parseSamplerSettings({
      sampler: config.otelTracesSampler,
      arg: config.otelTracesSamplerArg,
    }),
    hide: {
      hideInputs: config.openinferenceHideInputs,
      hideOutputs: config.openinferenceHideOutputs,
      hideInputMessages: config.openinferenceHideInputMessages,
      hideOutputMessages: config.openinferenceHideOutputMessages,
      hideInputText: config.openinferenceHideInputText,
      hideOutputText: config.openinferenceHideOutputText,
      hideLlmInvocationParameters: config.openinferenceHideLlmInvocationParameters,
    },
  };
}
