import { z } from 'zod';

/** A plan node id: short, URL- and log-safe. */
export const planNodeIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,64}$/, 'node ids are 1-64 letters, digits, "_" or "-"');

/** At most this many files per plan node (the code agent mounts at most 16). */
export const MAX_NODE_FILES = 16;

/**
 * A document filename a plan node names: the orchestrator fetches the tenant's document of that
 * name from the RAG agent and sends it with the step (the code agent mounts it at `/data/<name>`).
 */
export const planNodeFileSchema = z
  .string()
  .min(1)
  .max(255, 'a file name has at most 255 characters')
  .refine(
    (name) => !name.includes('/') && !name.includes('\\') && !name.includes('\0'),
    'a file name has no "/", "\\" or NUL',
  );

/** One step of a plan: which agent does what, after which other steps. */
export const planNodeSchema = z.object({
  id: planNodeIdSchema,
  /** The agent's name, as its Agent Card gives it. */
  agent: z.string().min(1),
  /** The skill id from the agent's card, when the planner chose one. */
  skill: z.string().min(1).optional(),
  /** What the agent is asked to do, in words it can act on. */
  task: z.string().min(1),
  /** Ids of the nodes whose results this node needs. */
  dependsOn: z.array(planNodeIdSchema).default([]),
  /**
   * Document filenames (the tenant's uploads) the step works on: sent with its message as file
   * parts. Absent: none.
   */
  files: z
    .array(planNodeFileSchema)
    .max(MAX_NODE_FILES, `a step names at most ${MAX_NODE_FILES} files`)
    .optional(),
  /**
   * Set on a step added while the run went, not planned at its start: `handoff` — a step's result
   * asked for it (`from` the step that handed off); `replan` — planned again after `from` failed.
   * Absent: planned at the start (or by a review's re-plan).
   */
  origin: z
    .object({
      kind: z.enum(['handoff', 'replan']),
      from: planNodeIdSchema,
    })
    .optional(),
});
export type PlanNode = z.infer<typeof planNodeSchema>;

/** The DAG the planner returns (docs/architecture.md §5). */
export const planSchema = z.object({
  nodes: z.array(planNodeSchema).max(32, 'a plan has at most 32 nodes'),
  rationale: z.string(),
  confidence: z.number().min(0).max(1),
});
export type Plan = z.infer<typeof planSchema>;

/** Why a plan cannot run. */
export type PlanValidation = { valid: true } | { valid: false; errors: string[] };

/**
 * Checks a plan against the agents that exist: unique node ids, known agents, no dangling edges,
 * no self-dependencies and no cycles. Every problem is listed, so an LLM asked to repair the plan
 * sees them all at once.
 */
export function validatePlan(plan: Plan, knownAgents: readonly string[]): PlanValidation {
  const errors: string[] = [];
  const agents = new Set(knownAgents);
  const ids = new Set<string>();
  for (const node of plan.nodes) {
    if (ids.has(node.id)) errors.push(`node id "${node.id}" is used more than once`);
    ids.add(node.id);
    if (!agents.has(node.agent)) {
      errors.push(
        `node "${node.id}" names agent "${node.agent}", which is not available (available: ${[...agents].join(', ') || 'none'})`,
      );
    }
  }
  for (const node of plan.nodes) {
    for (const dependency of node.dependsOn) {
      if (dependency === node.id) errors.push(`node "${node.id}" depends on itself`);
      else if (!ids.has(dependency)) {
        errors.push(`node "${node.id}" depends on "${dependency}", which is not in the plan`);
      }
    }
  }
  const cycle = findCycle(plan.nodes);
  if (cycle) errors.push(`the plan has a cycle: ${cycle.join(' -> ')}`);
  return errors.length === 0 ? { valid: true } : { valid: false, errors };
}

/** A dependency cycle as a path of node ids (first id repeated at the end), or undefined. */
export function findCycle(nodes: readonly PlanNode[]): string[] | undefined {
  const byId = new Map(nodes.map((node) => [node.id, node]));
  const state = new Map<string, 'visiting' | 'done'>();
  const path: string[] = [];
  const visit = (id: string): string[] | undefined => {
    const seen = state.get(id);
    if (seen === 'done') return undefined;
    if (seen === 'visiting') return [...path.slice(path.indexOf(id)), id];
    state.set(id, 'visiting');
    path.push(id);
    for (const dependency of byId.get(id)?.dependsOn ?? []) {
      if (dependency === id || !byId.has(dependency)) continue;
      const cycle = visit(dependency);
      if (cycle) return cycle;
    }
    path.pop();
    state.set(id, 'done');
    return undefined;
  };
  for (const node of nodes) {
    const cycle = visit(node.id);
    if (cycle) return cycle;
  }
  return undefined;
}

/**
 * The longest chain of dependencies, in nodes. The run of a plan takes about as long as its
 * critical path when every node starts as soon as its dependencies are done.
 */
export function criticalPath(
  nodes: readonly PlanNode[],
  durationOf: (node: PlanNode) => number = () => 1,
): number {
  const byId = new Map(nodes.map((node) => [node.id, node]));
  const memo = new Map<string, number>();
  const finish = (node: PlanNode): number => {
    const known = memo.get(node.id);
    if (known !== undefined) return known;
    memo.set(node.id, Number.NaN); // guards against cycles (validatePlan rejects them first)
    let start = 0;
    for (const dependency of node.dependsOn) {
      const parent = byId.get(dependency);
      if (parent) start = Math.max(start, finish(parent));
    }
    const value = start + durationOf(node);
    memo.set(node.id, value);
    return value;
  };
  return nodes.reduce((longest, node) => Math.max(longest, finish(node)), 0);
}
