import { describe, expect, it } from '@jest/globals';
import { planNodeIdSchema, type HandoffRequest, type PlanNode } from '@fleet/a2a';
import { decideHandoff, MAX_PLAN_NODES, type ResolveHandoff } from './plan-growth';

const node = (id: string, agent: string, origin?: PlanNode['origin']): PlanNode => ({
  id,
  agent,
  task: `work of ${id}`,
  dependsOn: origin === undefined ? [] : [origin.from],
  ...(origin === undefined ? {} : { origin }),
});

const byName: ResolveHandoff = (request) =>
  Promise.resolve(request.agent === undefined ? { refused: 'unknown' } : { agent: request.agent });

const decide = (
  from: PlanNode,
  nodes: PlanNode[],
  { maxHandoffs = 3, ...request }: HandoffRequest & { maxHandoffs?: number },
) =>
  decideHandoff({
    from,
    request,
    byId: new Map(nodes.map((entry) => [entry.id, entry])),
    resolve: byName,
    maxHandoffs,
  });

describe('decideHandoff', () => {
  it('adds a node after the step, with a valid unique id even for a long step id', async () => {
    const long = node('x'.repeat(64), 'a');
    const taken = node(`${'x'.repeat(54)}-handoff-1`, 'c', { kind: 'handoff', from: long.id });
    const decision = await decide(long, [long, taken], { agent: 'b', task: 'more' });
    expect(decision).toEqual({
      node: {
        id: `${'x'.repeat(54)}-handoff-2`,
        agent: 'b',
        task: 'more',
        dependsOn: [long.id],
        origin: { kind: 'handoff', from: long.id },
      },
    });
    const id = 'node' in decision ? decision.node.id : '';
    expect(planNodeIdSchema.safeParse(id).success).toBe(true);
  });

  it('refuses going back along a longer loop, and past the plan’s node limit', async () => {
    const a = node('a', 'alpha');
    const b = node('b', 'beta', { kind: 'handoff', from: 'a' });
    const c = node('c', 'gamma', { kind: 'handoff', from: 'b' });
    expect(await decide(c, [a, b, c], { agent: 'alpha', task: 'back', maxHandoffs: 5 })).toEqual({
      refused: expect.stringContaining('alpha already worked on this chain') as unknown as string,
    });
    expect(
      await decide(c, [a, b, c], { agent: 'delta', task: 'on', maxHandoffs: 5 }),
    ).toHaveProperty('node');
    const full = Array.from({ length: MAX_PLAN_NODES }, (_, index) => node(`n${index}`, 'alpha'));
    expect(await decide(full[0] as PlanNode, full, { agent: 'beta', task: 'more' })).toEqual({
      refused: `the plan has ${MAX_PLAN_NODES} steps, its limit`,
    });
    expect(await decide(a, [a], { agent: 'beta', task: 'more', maxHandoffs: 0 })).toEqual({
      refused: 'this run takes no hand-offs',
    });
  });
});
