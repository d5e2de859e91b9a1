import { describe, expect, it } from '@jest/globals';
import { ConfigError } from '@fleet/errors';
import { defaultTenant } from './default-tenant';

describe('defaultTenant', () => {
  it("is the generated dev key's tenant when GATEWAY_API_KEYS is unset or blank", () => {
    expect(defaultTenant(undefined)).toEqual({ tenant: 'dev', source: 'dev-key' });
    expect(defaultTenant(' , ')).toEqual({ tenant: 'dev', source: 'dev-key' });
  });

  it('is the tenant of the first configured key, not dev', () => {
    expect(
      defaultTenant(' sk-acme-0123456789abcdef:acme , sk-beta-0123456789abcdef:beta-2'),
    ).toEqual({ tenant: 'acme', source: 'GATEWAY_API_KEYS' });
  });

  it('splits at the last colon, as the gateway does', () => {
    expect(defaultTenant('sk:with:colons-0123456789:team.eu').tenant).toBe('team.eu');
  });

  it('names GATEWAY_API_KEYS when its first entry has no tenant', () => {
    expect(() => defaultTenant('sk-acme-0123456789abcdef')).toThrow(ConfigError);
    expect(() => defaultTenant('sk-acme-0123456789abcdef:a b')).toThrow(/GATEWAY_API_KEYS/);
  });
});
