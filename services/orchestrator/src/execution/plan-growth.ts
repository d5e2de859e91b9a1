import type { HandoffRequest, PlanNode } from '@fleet/a2a';

/** Most nodes a plan may have, added ones included (the plan schema's limit). */
export const MAX_PLAN_NODES = 32;

/** Longest plan node id (`planNodeIdSchema`). */
const MAX_NODE_ID = 64;

/** The agent (and skill) a hand-off goes to, among the agents the run may use. */
export interface HandoffTarget {
  agent: string;
  skill?: string | undefined;
}

/**
 * Finds the agent a hand-off names among the agents the run may use (after the tenant's tool
 * policy and the request's exclusions): the target, or why there is none, naming what was asked
 * for. Must not reject.
 */
export type ResolveHandoff = (
  request: HandoffRequest,
) => Promise<HandoffTarget | { refused: string }>;

/** What the hand-off names, as a person reads it: `agent`, `skill` or `agent/skill`. */
export function handoffTargetName(request: Pick<HandoffRequest, 'agent' | 'skill'>): string {
  if (request.agent !== undefined && request.skill !== undefined) {
    return request.skill.startsWith(`${request.agent}/`)
      ? request.skill
      : `${request.agent}/${request.skill}`;
  }
  return request.agent ?? request.skill ?? 'nothing';
}

/**
 * The steps a hand-off chain led through to `node`, `node` first: its `origin.from` while it was
 * a hand-off, back to the step planned at the start (or re-planned) that began the chain.
 */
export function handoffChain(node: PlanNode, byId: ReadonlyMap<string, PlanNode>): PlanNode[] {
  const chain = [node];
  const seen = new Set([node.id]);
  let current = node;
  while (current.origin?.kind === 'handoff') {
    const from = byId.get(current.origin.from);
    if (from === undefined || seen.has(from.id)) break;
    chain.push(from);
    seen.add(from.id);
    current = from;
  }
  return chain;
}

/** A node id made from `base` and `suffix`, cut to fit the id's 64 characters. */
export function derivedNodeId(base: string, suffix: string): string {
  return `${base.slice(0, Math.max(1, MAX_NODE_ID - suffix.length))}${suffix}`;
}

/** The first id `<base><infix><n>` (n = 1, 2, …) that no node has. */
export function uniqueNodeId(
  base: string,
  infix: string,
  taken: ReadonlySet<string> | ReadonlyMap<string, unknown>,
): string {
  for (let n = 1; ; n += 1) {
    const id = derivedNodeId(base, `${infix}${n}`);
    if (!taken.has(id)) return id;
  }
}

/** What {@link decideHandoff} weighs. */
export interface DecideHandoffOptions {
  /** The step whose result asked for the hand-off. */
  from: PlanNode;
  request: HandoffRequest;
  /** The plan's nodes as they are now (added ones included), by id. */
  byId: ReadonlyMap<string, PlanNode>;
  resolve: ResolveHandoff | undefined;
  /** How many hand-offs the run may add in all. */
  maxHandoffs: number;
}

/**
 * Whether a hand-off is taken: the node to add (depending on `from`, with `origin` `handoff`), or
 * why not. Refused: beyond the run's hand-offs ({@link DecideHandoffOptions.maxHandoffs}, counted
 * over the plan's hand-off nodes, so a resumed run counts those it added before) or the plan's
 * {@link MAX_PLAN_NODES}; a target the run may not use or that does not exist; the step's own
 * agent; an agent already on the hand-off chain that led to the step (no hand-off goes back).
 */
export async function decideHandoff({
  from,
  request,
  byId,
  resolve,
  maxHandoffs,
}: DecideHandoffOptions): Promise<{ node: PlanNode } | { refused: string }> {
  const nodes = [...byId.values()];
  const taken = nodes.filter((node) => node.origin?.kind === 'handoff').length;
  if (taken >= maxHandoffs) {
    return {
      refused:
        maxHandoffs === 0
          ? 'this run takes no hand-offs'
          : `the run has already taken ${taken} hand-off${taken === 1 ? '' : 's'}, its limit`,
    };
  }
  if (nodes.length >= MAX_PLAN_NODES) {
    return { refused: `the plan has ${nodes.length} steps, its limit` };
  }
  if (resolve === undefined) return { refused: 'this run takes no hand-offs' };
  const target = await resolve(request);
  if ('refused' in target) return target;
  if (target.agent === from.agent) {
    return { refused: `a step does not hand off to its own agent (${from.agent})` };
  }
  const chain = handoffChain(from, byId);
  const earlier = chain.find((node) => node.agent === target.agent);
  if (earlier !== undefined) {
    const path = [...chain]
      .reverse()
      .map((node) => `${node.id} (${node.agent})`)
      .join(' → ');
    return {
      refused: `${target.agent} already worked on this chain of hand-offs (${path}): work is not handed back`,
    };
  }
  const id = uniqueNodeId(from.id, '-handoff-', byId);
  const context =
    request.context === undefined || request.context.trim() === ''
      ? ''
      : `\n\nContext from step ${from.id}: ${request.context}`;
  return {
    node: {
      id,
      agent: target.agent,
      ...(target.skill === undefined ? {} : { skill: target.skill }),
      task: `${request.task}${context}`,
      dependsOn: [from.id],
      origin: { kind: 'handoff', from: from.id },
    },
  };
}
