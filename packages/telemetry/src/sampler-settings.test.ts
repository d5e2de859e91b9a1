import { describe, expect, it } from '@jest/globals';
import { parseSamplerSettings } from './sampler-settings';

describe('parseSamplerSettings', () => {
  it('returns undefined when no sampler is named, leaving the SDK default', () => {
    expect(parseSamplerSettings({})).toBeUndefined();
    expect(parseSamplerSettings({ sampler: '  ', arg: '0.5' })).toBeUndefined();
  });

  it('reads a ratio sampler with its argument, names case-insensitively', () => {
    expect(parseSamplerSettings({ sampler: 'ParentBased_TraceIdRatio', arg: '0.1' })).toEqual({
      name: 'parentbased_traceidratio',
      ratio: 0.1,
    });
    expect(parseSamplerSettings({ sampler: 'traceidratio', arg: 0 })).toEqual({
      name: 'traceidratio',
      ratio: 0,
    });
  });

  it('ignores the argument of samplers that take none', () => {
    expect(parseSamplerSettings({ sampler: 'always_off', arg: '7' })).toEqual({
      name: 'always_off',
    });
    expect(parseSamplerSettings({ sampler: 'parentbased_always_on' })).toEqual({
      name: 'parentbased_always_on',
    });
  });

  it('leaves the ratio to its default of 1 when the argument is blank', () => {
    expect(parseSamplerSettings({ sampler: 'traceidratio', arg: '' })).toEqual({
      name: 'traceidratio',
    });
  });

  it('throws naming the variable for an unknown sampler or a ratio outside 0-1', () => {
    expect(() => parseSamplerSettings({ sampler: 'jaeger_remote' })).toThrow(
      /OTEL_TRACES_SAMPLER: expected one of always_on, always_off/,
    );
    expect(() => parseSamplerSettings({ sampler: 'traceidratio', arg: '1.5' })).toThrow(
      /OTEL_TRACES_SAMPLER_ARG/,
    );
    expect(() => parseSamplerSettings({ sampler: 'traceidratio', arg: 'half' })).toThrow(
      /OTEL_TRACES_SAMPLER_ARG/,
    );
  });
});
