import type { Plan, PlanNode } from '@fleet/a2a';
import type { Session } from '@fleet/sessions';
import {
  MAX_PLAN_NODES,
  uniqueNodeId,
  type ExecutionResult,
  type NodeRun,
  type ResumedNode,
} from '../execution';
import { planRun, type AskPlanner } from '../planning';
import type { OrchestratorAgentOptions } from './orchestrator-agent-options';
import { recordAddedNodes } from './record-added-nodes';
import type { RunContext } from './run-context';

/** What {@link replanAfterFailure} needs of the run. */
export interface ReplanRun {
  run: RunContext;
  options: OrchestratorAgentOptions;
  session: Session;
}

/** What {@link replanAfterFailure} works on. */
export interface ReplanAfterFailureOptions {
  /** How the plan's execution ended. */
  execution: ExecutionResult;
  /** The run's planner (its usage counted as the run's). */
  askPlanner: AskPlanner;
  /** Executes the grown plan, the nodes that ended keeping their results (`resumeFrom`). */
  execute: (
    plan: Plan,
    resumeFrom: Readonly<Record<string, ResumedNode>>,
  ) => Promise<ExecutionResult>;
}

/** The error of a node that failed because the run was canceled (not a failure to work around). */
const CANCELED_ERROR = 'the run was canceled';

/**
 * After the plan ran, a step that failed for a reason another agent could work around (it
 * `failed`: not declined by a person, not rejected by its agent, not canceled) is planned once
 * more: the planner hears which steps failed and why (`feedback`, with the plan as it ran) and
 * plans only the remaining work. The new plan's steps that are not already done are added (ids
 * made unique, `origin` `replan` from the failed step, dependencies on done steps kept), recorded
 * in one session write, announced (`node-added`) and executed; the steps that ended keep their
 * results. Nothing more happens when the run already re-planned after a failure (a step with
 * origin `replan`), no other agent is available, re-planning is off, the planner fails, or the
 * new plan adds nothing or gives the work to a failed step's agent again. Never rejects.
 *
 * @example
 * const execution = await replanAfterFailure(run, { execution, askPlanner, execute });
 */
export async function replanAfterFailure(
  { run, options, session }: ReplanRun,
  { execution, askPlanner, execute }: ReplanAfterFailureOptions,
): Promise<ExecutionResult> {
  const { signal, logger, log } = run;
  if (options.replanAfterFailure === false || execution.canceled || signal.aborted) {
    return execution;
  }
  const { plan } = execution;
  if (plan.nodes.some((node) => node.origin?.kind === 'replan')) return execution;
  const failed = execution.nodes.filter(
    (node) => node.state === 'failed' && node.error !== CANCELED_ERROR,
  );
  const [first] = failed;
  if (first === undefined) return execution;
  const failedAgents = new Set(failed.map((node) => node.agent));
  try {
    const agents = await options.availableAgents();
    if (!agents.some((agent) => !failedAgents.has(agent.name))) return execution;
    const feedback = `${failed.map(describeFailure).join(' ')} Plan only the remaining work, with other agents if one can do it.`;
    logger.info(
      { ...log, failedNodes: failed.map((node) => node.id) },
      're-planning after a failure',
    );
    const replanned = await planRun({
      askPlanner,
      request: session.request,
      history: session.history,
      agents: agents.map((agent) => agent.summary),
      feedback,
      previousPlan: plan,
      signal,
    });
    const added = newNodes({
      plan,
      runs: execution.nodes,
      replanned: replanned.plan,
      from: first.id,
    });
    if (added.length === 0) {
      logger.info(log, 'the re-plan added no step');
      return execution;
    }
    if (added.some((node) => failedAgents.has(node.agent))) {
      logger.info(log, 'the re-plan gave the work to the agent that failed again');
      return execution;
    }
    if (plan.nodes.length + added.length > MAX_PLAN_NODES) {
      logger.info(log, 'the re-plan would pass the plan’s step limit');
      return execution;
    }
    if (signal.aborted) return execution;
    recordAddedNodes(run.writer, added);
    const reason = `re-planned after ${failed.map((node) => `step ${node.id} (${node.agent})`).join(', ')} failed`;
    for (const node of added) run.progress({ type: 'node-added', node, reason });
    const resumeFrom = Object.fromEntries(
      execution.nodes.map(({ id, ...recorded }) => [id, recorded]),
    );
    return await execute({ ...plan, nodes: [...plan.nodes, ...added] }, resumeFrom);
  } catch (error) {
    logger.warn({ ...log, err: error }, 'could not re-plan after a failure');
    return execution;
  }
}

function describeFailure(node: NodeRun): string {
  return `Step ${node.id} (${node.agent}) failed: ${(node.error ?? 'unknown error').replace(/\.+$/, '')}.`;
}

/** Whether two steps ask the same agent for the same work. */
function sameWork(a: PlanNode, b: PlanNode): boolean {
  return a.agent === b.agent && a.task === b.task && (a.skill ?? '') === (b.skill ?? '');
}

/**
 * The steps of `replanned` that the plan has not done already, ready to add: unique ids, origin
 * `replan` from `from`, dependencies on a step the plan has (the same work, or the same id of a
 * step that ended) pointing at it. A step the same as one that ended otherwise than failed
 * (done, declined, skipped) is not added again.
 */
function newNodes({
  plan,
  runs,
  replanned,
  from,
}: {
  plan: Plan;
  runs: readonly NodeRun[];
  replanned: Plan;
  from: string;
}): PlanNode[] {
  const stateOf = new Map(runs.map((entry) => [entry.id, entry.state]));
  const kept = plan.nodes.filter((node) => stateOf.get(node.id) !== 'failed');
  const taken = new Set(plan.nodes.map((node) => node.id));
  const ids = new Map<string, string>();
  const fresh: PlanNode[] = [];
  for (const node of replanned.nodes) {
    const done = kept.find((entry) => sameWork(entry, node));
    if (done !== undefined) {
      ids.set(node.id, done.id);
      continue;
    }
    const id = taken.has(node.id) ? uniqueNodeId(node.id, '-replan-', taken) : node.id;
    taken.add(id);
    ids.set(node.id, id);
    fresh.push(node);
  }
  return fresh.map((node) => {
    const dependsOn = node.dependsOn.flatMap((dependency) => {
      const mapped = ids.get(dependency) ?? dependency;
      return taken.has(mapped) ? [mapped] : [];
    });
    return {
      ...node,
      id: ids.get(node.id) ?? node.id,
      dependsOn: [...new Set(dependsOn)],
      origin: { kind: 'replan', from },
    };
  });
}
