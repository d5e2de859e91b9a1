import { describe, expect, it } from '@jest/globals';
import { BadRequestError } from '@fleet/errors';
import { parseRoutingHeader, resolveRoute } from './resolve-route';

describe('parseRoutingHeader', () => {
  it('accepts the allowed values in any case', () => {
    expect(parseRoutingHeader('Orchestration')).toBe('orchestration');
    expect(parseRoutingHeader(' PASSTHROUGH ')).toBe('passthrough');
    expect(parseRoutingHeader(undefined)).toBeUndefined();
  });

  it('rejects anything else, naming the allowed values', () => {
    expect(() => parseRoutingHeader('smart')).toThrow(BadRequestError);
    expect(() => parseRoutingHeader('smart')).toThrow(
      "Unknown X-Routing-Mode 'smart'. Allowed values: passthrough, reasoning, orchestration, auto.",
    );
  });
});

describe('resolveRoute', () => {
  it('takes the header when there is nothing forcing passthrough', () => {
    expect(resolveRoute('orchestration', { model: 'm' })).toEqual({ mode: 'orchestration' });
  });

  it('forces passthrough for tools and response_format, and says why', () => {
    const tools = resolveRoute('orchestration', { model: 'm', tools: [{ type: 'function' }] });
    expect(tools.mode).toBe('passthrough');
    expect(tools.reason).toMatch(/tools present/);
    const format = resolveRoute('reasoning', {
      model: 'm',
      response_format: { type: 'json_object' },
    });
    expect(format.mode).toBe('passthrough');
    expect(format.reason).toMatch(/response_format present/);
  });

  it('does not treat an empty tools array as tools', () => {
    expect(resolveRoute('orchestration', { model: 'm', tools: [] }).mode).toBe('orchestration');
  });

  it('routes fleet model ids when there is no header, and lets the header win', () => {
    expect(resolveRoute(undefined, { model: 'fleet-orchestration' })).toEqual({
      mode: 'orchestration',
      reason: 'model fleet-orchestration',
    });
    expect(resolveRoute('passthrough', { model: 'fleet-orchestration' }).mode).toBe('passthrough');
    expect(resolveRoute(undefined, { model: 'gpt-4o' })).toEqual({ mode: 'passthrough' });
  });
});
