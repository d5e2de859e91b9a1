import { describe, expect, it } from '@jest/globals';
import {
  criticalPath,
  findCycle,
  planNodeSchema,
  planSchema,
  validatePlan,
  type Plan,
} from './plan';

const plan = (nodes: { id: string; agent: string; dependsOn?: string[] }[]): Plan =>
  planSchema.parse({
    nodes: nodes.map((node) => ({ task: `do ${node.id}`, ...node })),
    rationale: 'r',
    confidence: 0.5,
  });

describe('validatePlan', () => {
  it('accepts a diamond over known agents', () => {
    const diamond = plan([
      { id: 'a', agent: 'web' },
      { id: 'b', agent: 'rag' },
      { id: 'c', agent: 'web', dependsOn: ['a', 'b'] },
    ]);
    expect(validatePlan(diamond, ['web', 'rag'])).toEqual({ valid: true });
  });

  it('lists every problem at once', () => {
    const broken = plan([
      { id: 'a', agent: 'ghost', dependsOn: ['a'] },
      { id: 'b', agent: 'web', dependsOn: ['zzz', 'c'] },
      { id: 'c', agent: 'web', dependsOn: ['b'] },
      { id: 'b', agent: 'web', dependsOn: ['c'] },
    ]);
    const result = validatePlan(broken, ['web']);
    expect(result.valid).toBe(false);
    const errors = result.valid ? [] : result.errors;
    expect(errors).toEqual(
      expect.arrayContaining([
        'node id "b" is used more than once',
        expect.stringContaining('names agent "ghost", which is not available'),
        'node "a" depends on itself',
        'node "b" depends on "zzz", which is not in the plan',
        expect.stringContaining('the plan has a cycle'),
      ]),
    );
  });
});

describe('findCycle', () => {
  it('returns the cycle as a path', () => {
    const cyclic = plan([
      { id: 'a', agent: 'x', dependsOn: ['c'] },
      { id: 'b', agent: 'x', dependsOn: ['a'] },
      { id: 'c', agent: 'x', dependsOn: ['b'] },
    ]);
    expect(findCycle(cyclic.nodes)).toEqual(['a', 'c', 'b', 'a']);
    expect(findCycle(plan([{ id: 'a', agent: 'x' }]).nodes)).toBeUndefined();
  });
});

describe('criticalPath', () => {
  it('is the longest dependency chain, weighted by duration', () => {
    const unbalanced = plan([
      { id: 'a', agent: 'x' },
      { id: 'b', agent: 'x', dependsOn: ['a'] },
      { id: 'c', agent: 'x' },
      { id: 'd', agent: 'x', dependsOn: ['b', 'c'] },
    ]);
    expect(criticalPath(unbalanced.nodes)).toBe(3);
    const durations: Record<string, number> = { a: 10, b: 10, c: 50, d: 5 };
    expect(criticalPath(unbalanced.nodes, (node) => durations[node.id] ?? 0)).toBe(55);
  });
});

describe('planNodeSchema files', () => {
  const node = (files: unknown) =>
    planNodeSchema.safeParse({ id: 'n', agent: 'code-agent', task: 't', files });

  it('takes up to 16 document names of up to 255 characters', () => {
    expect(node(['sales.csv', 'report.xlsx']).success).toBe(true);
    expect(node(Array.from({ length: 16 }, (_, index) => `f${index}.csv`)).success).toBe(true);
    expect(node([`${'a'.repeat(251)}.csv`]).success).toBe(true);
    expect(planNodeSchema.parse({ id: 'n', agent: 'a', task: 't' }).files).toBeUndefined();
  });

  it('refuses more names, longer names, empty names and paths', () => {
    expect(node(Array.from({ length: 17 }, (_, index) => `f${index}.csv`)).success).toBe(false);
    expect(node([`${'a'.repeat(252)}.csv`]).success).toBe(false);
    expect(node(['']).success).toBe(false);
    expect(node(['../secrets.csv']).success).toBe(false);
    expect(node(['dir\\sales.csv']).success).toBe(false);
  });
});
