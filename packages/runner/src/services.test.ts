import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { SERVICES, selectServices } from './services';

const root = path.resolve(__dirname, '..', '..', '..');

describe('SERVICES', () => {
  it('names each service, package, port variable and port once', () => {
    for (const key of [
      'name',
      'packageDir',
      'portVariable',
      'defaultPort',
      'urlVariable',
    ] as const) {
      const values = SERVICES.map((service) => service[key]);
      expect(new Set(values).size).toBe(values.length);
    }
  });

  it('points at workspace packages that exist', () => {
    for (const service of SERVICES) {
      const manifest = path.join(root, service.packageDir, 'package.json');
      expect(existsSync(manifest)).toBe(true);
      expect(readFileSync(manifest, 'utf8')).toContain(`"@fleet/${service.name}"`);
    }
  });
});

describe('selectServices', () => {
  const services = [
    { ...SERVICES[0]!, name: 'gateway' },
    { ...SERVICES[0]!, name: 'planner' },
    { ...SERVICES[0]!, name: 'web-agent' },
  ];

  it('keeps every service without --only, and table order with it', () => {
    expect(selectServices({ services })).toEqual({ success: true, services });
    const picked = selectServices({ services, only: ['web-agent', 'gateway'] });
    expect(picked.success && picked.services.map((service) => service.name)).toEqual([
      'gateway',
      'web-agent',
    ]);
  });

  it('reports names it does not know', () => {
    expect(selectServices({ services, only: ['gateway', 'mailer'] })).toEqual({
      success: false,
      unknown: ['mailer'],
    });
  });
});
