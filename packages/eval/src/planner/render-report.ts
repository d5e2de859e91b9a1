import type { PlanNode } from '@fleet/a2a';
import type { ExpectedStep } from './planner-cases';
import { shareOf, type CaseResult, type PlannerEvalSummary, type Tally } from './run-planner-eval';
import type { CaseSet } from './planner-cases';

function percent(tally: Tally | undefined): string {
  if (tally === undefined || tally.total === 0) return '—';
  return `${(shareOf(tally) * 100).toFixed(1)}% (${tally.right}/${tally.total})`;
}

function oneLine(text: string, limit = 160): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > limit ? `${flat.slice(0, limit - 1)}…` : flat;
}

function describeStep(step: ExpectedStep, index: number): string {
  const agent = typeof step.agent === 'string' ? step.agent : step.agent.join('|');
  const skill =
    step.skill === undefined
      ? ''
      : `/${typeof step.skill === 'string' ? step.skill : step.skill.join('|')}`;
  const carries = step.carries?.length
    ? ` carrying ${step.carries.map((text) => JSON.stringify(oneLine(text, 60))).join(', ')}`
    : '';
  const after = step.after?.length ? ` after ${step.after.map((at) => at + 1).join(', ')}` : '';
  return `${index + 1}. ${agent}${skill}${carries}${after}`;
}

function describeNode(node: PlanNode): string {
  const after = node.dependsOn.length ? ` after ${node.dependsOn.join(', ')}` : '';
  return `${node.id} = ${node.agent}${node.skill ? `/${node.skill}` : ''}${after}: ${JSON.stringify(oneLine(node.task, 200))}`;
}

/** The goals the offline run is held to. */
export interface PlannerGoals {
  /** Share right on the tuning set. */
  tuning: number;
  /** Share right on single-agent requests of the tuning set. */
  singleAgent: number;
  /** Share right on the held-out set: a floor, not a goal to tune for. */
  heldOut: number;
}

/** The goals of the offline run: 95 % tuning, every single-agent request, 80 % held out. */
export const OFFLINE_GOALS: PlannerGoals = { tuning: 0.95, singleAgent: 1, heldOut: 0.8 };

/** Right and total of the `single:*` categories of one set. */
export function singleAgentTally(results: readonly CaseResult[], set: CaseSet): Tally {
  const single = results.filter(
    (result) =>
      result.set === set && result.categories.some((category) => category.startsWith('single:')),
  );
  return { right: single.filter((result) => result.right).length, total: single.length };
}

/** Which goals the run misses, as sentences (none: all met). */
export function missedGoals(
  results: readonly CaseResult[],
  summary: PlannerEvalSummary,
  goals: PlannerGoals,
): string[] {
  const missed: string[] = [];
  const tuning = summary.bySet.tuning;
  if (tuning && shareOf(tuning) < goals.tuning)
    missed.push(`tuning set ${percent(tuning)} is below ${goals.tuning * 100}%`);
  const single = singleAgentTally(results, 'tuning');
  if (single.total > 0 && shareOf(single) < goals.singleAgent)
    missed.push(
      `single-agent requests (tuning) ${percent(single)} are below ${goals.singleAgent * 100}%`,
    );
  const heldOut = summary.bySet['held-out'];
  if (heldOut && shareOf(heldOut) < goals.heldOut)
    missed.push(`held-out set ${percent(heldOut)} is below the floor of ${goals.heldOut * 100}%`);
  return missed;
}

/**
 * The printed report: the share right per category (tuning and held-out side by side), per set
 * and overall, then every miss with its request, the expected plans and the plan it got.
 */
export function renderReport(options: {
  title: string;
  results: readonly CaseResult[];
  summary: PlannerEvalSummary;
  goals?: PlannerGoals | undefined;
}): string {
  const { title, results, summary, goals } = options;
  const width = Math.max(24, ...Object.keys(summary.byCategory).map((name) => name.length + 2));
  const column = 22;
  const row = (name: string, tuning: string, heldOut: string) =>
    `${name.padEnd(width)}${tuning.padEnd(column)}${heldOut}`;
  const lines = [
    title,
    '',
    row('category', 'tuning', 'held-out'),
    row('-'.repeat(width - 2), '-'.repeat(column - 2), '-'.repeat(column - 2)),
  ];
  for (const [category, sets] of Object.entries(summary.byCategory))
    lines.push(row(category, percent(sets.tuning), percent(sets['held-out'])));
  lines.push(
    row(
      'single-agent (all)',
      percent(singleAgentTally(results, 'tuning')),
      percent(singleAgentTally(results, 'held-out')),
    ),
  );
  lines.push(row('-'.repeat(width - 2), '-'.repeat(column - 2), '-'.repeat(column - 2)));
  lines.push(row('set', percent(summary.bySet.tuning), percent(summary.bySet['held-out'])));
  lines.push('', `overall: ${percent(summary.overall)}`);
  if (summary.fallbacks > 0)
    lines.push(
      `the LLM's plan was unusable (heuristic fallback) for ${summary.fallbacks} request${summary.fallbacks === 1 ? '' : 's'}`,
    );
  const misses = results.filter((result) => !result.right);
  lines.push('', misses.length === 0 ? 'No misses.' : `Misses (${misses.length}):`);
  for (const miss of misses) {
    lines.push('', `[${miss.set}] ${miss.id} (${miss.categories.join(', ')}): ${miss.why ?? ''}`);
    lines.push(`  request:  ${JSON.stringify(oneLine(miss.request, 300))}`);
    miss.expected.forEach((steps, index) => {
      lines.push(
        `  ${index === 0 ? 'expected' : 'or      '}: ${steps.map(describeStep).join('; ')}`,
      );
    });
    if (miss.got.nodes.length === 0) lines.push('  got:      no steps');
    miss.got.nodes.forEach((node, index) =>
      lines.push(`  ${index === 0 ? 'got:     ' : '          '} ${describeNode(node)}`),
    );
    if (miss.fallbackReason)
      lines.push(`  (heuristic fallback: ${oneLine(miss.fallbackReason, 200)})`);
  }
  if (goals !== undefined) {
    const missed = missedGoals(results, summary, goals);
    lines.push(
      '',
      missed.length === 0
        ? `Goals met: tuning ≥ ${goals.tuning * 100}%, single-agent ${goals.singleAgent * 100}%, held-out ≥ ${goals.heldOut * 100}%.`
        : `Goals missed: ${missed.join('; ')}.`,
    );
  }
  return `${lines.join('\n')}\n`;
}
