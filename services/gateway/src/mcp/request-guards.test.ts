import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from '@jest/globals';
import { FleetError } from '@fleet/errors';
import { checkMcpRequestSource, type McpAllowList } from './request-guards';

const NONE: McpAllowList = { hosts: [], origins: [] };

function req(headers: Record<string, string>): IncomingMessage {
  return { headers } as unknown as IncomingMessage;
}

/** The status `checkMcpRequestSource` answers: 200 when it lets the request through. */
function statusOf(headers: Record<string, string>, allow: McpAllowList = NONE): number {
  try {
    checkMcpRequestSource(req(headers), allow);
    return 200;
  } catch (error) {
    if (FleetError.isInstance(error)) return error.status;
    throw error;
  }
}

describe('checkMcpRequestSource', () => {
  it.each(['127.0.0.1:8080', 'localhost:8080', 'LOCALHOST', '[::1]:8080', '127.0.0.1'])(
    'lets the loopback host %s through',
    (host) => {
      expect(statusOf({ host })).toBe(200);
    },
  );

  it.each(['gateway:8080', 'evil.example', '127.0.0.1.evil.example', '', 'a b'])(
    'refuses the host %j with 403',
    (host) => {
      expect(statusOf({ host })).toBe(403);
    },
  );

  it('refuses a request without a Host header', () => {
    expect(statusOf({})).toBe(403);
  });

  it('lets a configured host through, case-insensitively', () => {
    const allow = { hosts: ['Gateway', 'fleet.example.com'], origins: [] };
    expect(statusOf({ host: 'gateway:8080' }, allow)).toBe(200);
    expect(statusOf({ host: 'fleet.example.com' }, allow)).toBe(200);
    expect(statusOf({ host: 'other.example.com' }, allow)).toBe(403);
  });

  it('lets requests without an Origin through, and loopback origins on any port', () => {
    const host = 'localhost:8080';
    expect(statusOf({ host })).toBe(200);
    expect(statusOf({ host, origin: 'http://localhost:5173' })).toBe(200);
    expect(statusOf({ host, origin: 'https://127.0.0.1' })).toBe(200);
    expect(statusOf({ host, origin: 'http://[::1]:3000' })).toBe(200);
  });

  it.each([
    'https://evil.example',
    'null',
    'not a url',
    'file:///etc',
    'http://localhost.evil.example',
  ])('refuses the origin %j with 403', (origin) => {
    expect(statusOf({ host: 'localhost', origin })).toBe(403);
  });

  it('lets a configured origin through exactly: scheme, host and port', () => {
    const allow = { hosts: [], origins: ['https://app.example.com'] };
    expect(statusOf({ host: 'localhost', origin: 'https://app.example.com' }, allow)).toBe(200);
    expect(statusOf({ host: 'localhost', origin: 'http://app.example.com' }, allow)).toBe(403);
    expect(statusOf({ host: 'localhost', origin: 'https://app.example.com:8443' }, allow)).toBe(
      403,
    );
  });
});
