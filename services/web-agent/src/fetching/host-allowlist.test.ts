import { describe, expect, it } from '@jest/globals';
import { createHostAllowlist } from './host-allowlist';

describe('createHostAllowlist', () => {
  it('matches exact hosts case-insensitively, IPv6 with or without brackets', () => {
    const allowed = createHostAllowlist(['Intranet.Example.com', '127.0.0.1', '[::1]']);
    expect(allowed('intranet.example.com')).toBe(true);
    expect(allowed('INTRANET.example.com.')).toBe(true);
    expect(allowed('127.0.0.1')).toBe(true);
    expect(allowed('::1')).toBe(true);
    expect(allowed('[::1]')).toBe(true);
    expect(allowed('other.example.com')).toBe(false);
    expect(allowed('127.0.0.2')).toBe(false);
  });

  it('matches subdomains for *.domain entries, not the domain itself', () => {
    const allowed = createHostAllowlist(['*.corp.internal']);
    expect(allowed('wiki.corp.internal')).toBe(true);
    expect(allowed('a.b.corp.internal')).toBe(true);
    expect(allowed('corp.internal')).toBe(false);
    expect(allowed('evilcorp.internal')).toBe(false);
  });

  it('allows nothing when empty', () => {
    expect(createHostAllowlist([])('localhost')).toBe(false);
    expect(createHostAllowlist(['', ' '])('')).toBe(false);
  });
});
