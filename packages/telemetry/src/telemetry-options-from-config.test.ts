import { describe, expect, it } from '@jest/globals';
import { telemetryOptionsFromConfig } from './telemetry-options-from-config';

describe('telemetryOptionsFromConfig', () => {
  it('maps the sampler and the OpenInference hide flags onto the options', () => {
    const options = telemetryOptionsFromConfig(
      {
        otelEndpoint: 'http://127.0.0.1:6006',
        otelTracesSampler: 'parentbased_traceidratio',
        otelTracesSamplerArg: 0.25,
        openinferenceHideInputs: true,
        openinferenceHideOutputText: true,
        openinferenceHideLlmInvocationParameters: false,
      },
      { serviceName: 'gateway', trustInboundTraceContext: false },
    );
    expect(options.sampler).toEqual({ name: 'parentbased_traceidratio', ratio: 0.25 });
    expect(options.hide).toMatchObject({
      hideInputs: true,
      hideOutputText: true,
      hideLlmInvocationParameters: false,
    });
    expect(options.trustInboundTraceContext).toBe(false);
  });

  it('leaves the sampler to the SDK default when the service declares none', () => {
    const options = telemetryOptionsFromConfig({}, { serviceName: 'planner' });
    expect(options.sampler).toBeUndefined();
    expect(Object.values(options.hide ?? {}).every((flag) => flag === undefined)).toBe(true);
  });
});
