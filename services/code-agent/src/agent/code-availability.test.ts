import { describe, expect, it } from '@jest/globals';
import { agentCardSchema } from '@fleet/a2a';
import { AVAILABILITY_EXTENSION_URI } from '@fleet/agent-kit';
import { buildCodeCard } from './code-card';
import { codeAvailability, type CodeAvailabilityInput } from './code-availability';

/** The availability the card's extension declares. */
function declared(input: CodeAvailabilityInput): Record<string, unknown> | undefined {
  const card = agentCardSchema.parse(
    buildCodeCard({ url: 'http://127.0.0.1:8086', availability: codeAvailability(input) }),
  );
  return card.capabilities.extensions?.find(
    (extension) => extension.uri === AVAILABILITY_EXTENSION_URI,
  )?.params;
}

describe('codeAvailability', () => {
  it('is unconfigured without a sandbox, saying why and what to install', () => {
    const params = declared({
      sandbox: { available: false, reason: 'bwrap was not found on PATH' },
      offline: false,
    });
    expect(params).toMatchObject({ state: 'unconfigured' });
    expect(params?.['reason']).toContain('bwrap was not found on PATH');
    expect(params?.['reason']).toContain('apt-get install bubblewrap');
  });

  it('is degraded offline: it runs a given program but writes none', () => {
    const params = declared({ sandbox: { available: true }, offline: true });
    expect(params).toMatchObject({ state: 'degraded' });
    expect(params?.['reason']).toMatch(/```python/);
    expect(params?.['unavailableSkills']).toBeUndefined();
  });

  it('is ready with a sandbox and an LLM', () => {
    expect(declared({ sandbox: { available: true }, offline: false })).toEqual({ state: 'ready' });
  });

  it('leaves the card without the extension when nothing is said', () => {
    const card = buildCodeCard({ url: 'http://127.0.0.1:8086' });
    expect(card.capabilities.extensions ?? []).toEqual([]);
  });
});
