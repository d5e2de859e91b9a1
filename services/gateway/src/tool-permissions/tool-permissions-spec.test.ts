import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { loadGatewayConfig } from '../config';
import { createToolPermissions } from './tool-permissions';
import { inlineToolPermissionsSchema } from './tool-permissions-spec';

const BASE = { GATEWAY_API_KEYS: 'sk-test-acme-0123456789:acme' };
const directory = mkdtempSync(join(tmpdir(), 'tool-permissions-'));

afterAll(() => rmSync(directory, { recursive: true, force: true }));

describe('inlineToolPermissionsSchema', () => {
  it('parses tenants and a default', () => {
    expect(
      inlineToolPermissionsSchema.parse(
        '{"tenants":{"acme":{"deny":["memory/delete_*"]}},"default":{"allow":["memory/read_*"]}}',
      ),
    ).toEqual({
      tenants: { acme: { deny: ['memory/delete_*'] } },
      default: { allow: ['memory/read_*'] },
    });
  });

  it.each([
    [
      '{"tenants":{"acme":{"deny":["memory"]}}}',
      /tenant entry "acme"\.deny\.0: expected "<server>\/<tool>"/,
    ],
    ['{"tenants":{"acme":{"block":["a/b"]}}}', /tenant entry "acme": .*block/],
    ['{"tenants":{"ac me":{}}}', /tenant entry "ac me": expected a tenant/],
    ['{"default":{"allow":"a/b"}}', /default\.allow: /],
    ['{"tenant":{}}', /tenant/],
    ['{"tenants":', /not valid JSON|JSON/i],
  ])('fails naming the bad entry: %s', (value, message) => {
    const parsed = inlineToolPermissionsSchema.safeParse(value);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.message).toMatch(message);
  });
});

describe('loadGatewayConfig tool permissions', () => {
  it('has none by default: every tenant may use every tool', () => {
    const config = loadGatewayConfig(BASE);
    expect(config.toolPermissions).toBeUndefined();
    const permissions = createToolPermissions({
      file: config.toolPermissionsFile,
      inline: config.toolPermissions,
    });
    expect(permissions.policyFor('acme')).toBeUndefined();
  });

  it('merges the file and the inline variable, the inline entry winning per tenant', () => {
    const path = join(directory, 'permissions.json');
    writeFileSync(
      path,
      JSON.stringify({
        tenants: { acme: { deny: ['filesystem/*'] }, globex: { allow: ['memory/*'] } },
        default: { deny: ['*/*'] },
      }),
    );
    const config = loadGatewayConfig({
      ...BASE,
      GATEWAY_TOOL_PERMISSIONS_FILE: path,
      GATEWAY_TOOL_PERMISSIONS: '{"tenants":{"acme":{"deny":["memory/delete_*"]}}}',
    });
    const permissions = createToolPermissions({
      file: config.toolPermissionsFile,
      inline: config.toolPermissions,
    });
    expect(permissions.policyFor('acme')).toEqual({ deny: ['memory/delete_*'] });
    expect(permissions.policyFor('globex')).toEqual({ allow: ['memory/*'] });
    expect(permissions.policyFor('initech')).toEqual({ deny: ['*/*'] });
  });

  it('fails at start naming the variable, the file and the tenant entry', () => {
    expect(() =>
      loadGatewayConfig({
        ...BASE,
        GATEWAY_TOOL_PERMISSIONS: '{"tenants":{"acme":{"deny":["no-slash"]}}}',
      }),
    ).toThrow(/GATEWAY_TOOL_PERMISSIONS[\s\S]*tenant entry "acme"/);
    const bad = join(directory, 'bad.json');
    writeFileSync(bad, '{"tenants":{"globex":{"allow":[1]}}}');
    expect(() => loadGatewayConfig({ ...BASE, GATEWAY_TOOL_PERMISSIONS_FILE: bad })).toThrow(
      new RegExp(`GATEWAY_TOOL_PERMISSIONS_FILE[\\s\\S]*${bad}[\\s\\S]*tenant entry "globex"`),
    );
    expect(() =>
      loadGatewayConfig({ ...BASE, GATEWAY_TOOL_PERMISSIONS_FILE: '/nonexistent/tools.json' }),
    ).toThrow(/GATEWAY_TOOL_PERMISSIONS_FILE[\s\S]*cannot read \/nonexistent\/tools.json/);
  });
});
