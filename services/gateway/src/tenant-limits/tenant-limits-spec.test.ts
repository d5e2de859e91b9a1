import { describe, expect, it } from '@jest/globals';
import { loadGatewayConfig } from '../config';
import { inlineTenantLimitsSchema } from './tenant-limits-spec';

const BASE = { GATEWAY_API_KEYS: 'sk-test-acme-0123456789:acme' };

describe('inlineTenantLimitsSchema', () => {
  it('parses tenants and their limits, unlimited as null', () => {
    expect(
      inlineTenantLimitsSchema.parse(
        'acme:rpm=60,runs=2,tokens_per_day=200000; globex:rpm=unlimited,waiting=3;',
      ),
    ).toEqual({
      acme: { rpm: 60, runs: 2, tokens_per_day: 200000 },
      globex: { rpm: null, waiting: 3 },
    });
  });

  it.each([
    ['acme:rpm=60;globex:rmp=1', /entry 2 \(globex\).*rmp/],
    ['acme:rpm=0', /entry 1 \(acme\).*rpm.*whole number of 1 or more/],
    ['acme:rpm=1.5', /entry 1 \(acme\)/],
    ['acme rpm=1', /entry 1 is not 'tenant:name=value/],
    ['acme:rpm', /entry 1 \(acme\): 'rpm' is not name=value/],
  ])('fails naming the bad entry: %s', (value, message) => {
    const parsed = inlineTenantLimitsSchema.safeParse(value);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.message).toMatch(message);
  });
});

describe('loadGatewayConfig limits', () => {
  it('has generous defaults and no token budget', () => {
    const config = loadGatewayConfig(BASE);
    expect(config).toMatchObject({
      limitsEnabled: true,
      limitRpm: 600,
      limitWindowSeconds: 60,
      limitRuns: 20,
      limitWaiting: 50,
      limitTokensPerDay: null,
    });
  });

  it('fails at start naming the variable and the entry', () => {
    expect(() =>
      loadGatewayConfig({ ...BASE, GATEWAY_TENANT_LIMITS: 'acme:rpm=10;globex:tokens=5' }),
    ).toThrow(/GATEWAY_TENANT_LIMITS[\s\S]*entry 2 \(globex\)/);
    expect(() =>
      loadGatewayConfig({ ...BASE, GATEWAY_TENANT_LIMITS_FILE: '/nonexistent/limits.json' }),
    ).toThrow(/GATEWAY_TENANT_LIMITS_FILE[\s\S]*cannot read \/nonexistent\/limits.json/);
  });
});
