import { describe, expect, it } from '@jest/globals';
import { mergeMemory } from './merge-memory';
import { MAX_PROJECTS, MAX_VALUE_LENGTH, emptyMemory } from './memory-schema';

const t1 = new Date('2026-01-01T00:00:00.000Z');
const t2 = new Date('2026-01-02T00:00:00.000Z');

describe('mergeMemory', () => {
  it('adds new keys and keeps the others', () => {
    const first = mergeMemory({
      current: emptyMemory(),
      update: { facts: { name: 'Ada' }, preferences: { tone: 'formal' } },
      source: 'rules',
      now: t1,
    });
    const second = mergeMemory({
      current: first,
      update: { facts: { company: 'Kestrel' }, preferences: {} },
      source: 'llm',
      now: t2,
    });
    expect(second).toEqual({
      facts: {
        name: { value: 'Ada', source: 'rules', updatedAt: t1.toISOString() },
        company: { value: 'Kestrel', source: 'llm', updatedAt: t2.toISOString() },
      },
      preferences: { tone: { value: 'formal', source: 'rules', updatedAt: t1.toISOString() } },
      updatedAt: t2.toISOString(),
    });
  });

  it('lets the newer value win, per key', () => {
    const first = mergeMemory({
      current: emptyMemory(),
      update: { facts: { name: 'Ada', company: 'Kestrel' }, preferences: {} },
      source: 'rules',
      now: t1,
    });
    const second = mergeMemory({
      current: first,
      update: { facts: { company: 'Osprey Ltd' }, preferences: {} },
      source: 'rules',
      now: t2,
    });
    expect(second.facts.company?.value).toBe('Osprey Ltd');
    expect(second.facts.name).toEqual(first.facts.name);
  });

  it('returns the same memory when nothing changes', () => {
    const first = mergeMemory({
      current: emptyMemory(),
      update: { facts: { name: 'Ada' }, preferences: {} },
      source: 'rules',
      now: t1,
    });
    expect(
      mergeMemory({
        current: first,
        update: { facts: { name: ' Ada ' }, preferences: {} },
        source: 'llm',
        now: t2,
      }),
    ).toBe(first);
  });

  it('keeps at most MAX_PROJECTS projects, newest first, without duplicates', () => {
    let memory = emptyMemory();
    for (const [index, project] of ['A', 'B', 'C', 'D', 'E', 'F', 'b'].entries()) {
      memory = mergeMemory({
        current: memory,
        update: { facts: { projects: [project] }, preferences: {} },
        source: 'rules',
        now: new Date(t1.getTime() + index),
      });
    }
    expect(memory.facts.projects?.value).toEqual(['b', 'F', 'E', 'D', 'C']);
    expect(memory.facts.projects?.value).toHaveLength(MAX_PROJECTS);
  });

  it('cuts long values to MAX_VALUE_LENGTH and ignores empty ones', () => {
    const memory = mergeMemory({
      current: emptyMemory(),
      update: { facts: { jobTitle: 'x'.repeat(500), name: '   ' }, preferences: {} },
      source: 'llm',
      now: t1,
    });
    expect(memory.facts.jobTitle?.value).toHaveLength(MAX_VALUE_LENGTH);
    expect(memory.facts.name).toBeUndefined();
  });
});
