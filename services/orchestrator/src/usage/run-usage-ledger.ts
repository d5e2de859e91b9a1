import {
  addStepUsage,
  stepUsage,
  sumRunUsage,
  type RunUsage,
  type StepUsage,
  type StepUsageOptions,
} from '@fleet/a2a';
import { createUsageMeter, type MeteredUsage } from '@fleet/llm';

/** Options for {@link createRunUsageLedger}. */
export interface RunUsageLedgerOptions {
  /** The steps a resumed run's session recorded before it stopped: the ledger goes on from them. */
  recorded?: readonly StepUsage[] | undefined;
  /** Told the steps after every change, e.g. to record them in the session. */
  onChange?: ((steps: StepUsage[]) => void) | undefined;
}

/** The model usage of one run, step by step (docs/architecture.md §3, "Usage"). */
export interface RunUsageLedger {
  /**
   * Adds what an agent reported for a step it ran (`planner`, a node): `usage` undefined means it
   * reported nothing (`reported: false`). A step reported again (re-planning, a node's next turn)
   * adds to its counts.
   */
  report(options: StepUsageOptions): void;
  /**
   * Runs `work` (the orchestrator's own model calls: `composer`, `approval-instructions`) under a
   * usage meter and adds its calls as `step`; a step that called no model is not listed.
   */
  measure<T>(step: string, work: () => Promise<T>): Promise<T>;
  /** Adds a meter's calls as `step` (work that outlives a call: memory extraction). */
  addMetered(step: string, usage: MeteredUsage): void;
  /** The run's usage so far: the sums and the steps. */
  usage(): RunUsage;
}

/**
 * Creates the ledger of one run's model usage. Agent steps (the planner, every node that was sent)
 * are always listed, reported or not; the orchestrator's own steps only when they called a model.
 *
 * @example
 * const ledger = createRunUsageLedger({ recorded: session.usage, onChange: (steps) => record(steps) });
 * ledger.report({ step: 'planner', agent: 'planner', usage });
 * const answer = await ledger.measure('composer', () => composeAnswer(options));
 * result.usage = ledger.usage();
 */
export function createRunUsageLedger({
  recorded = [],
  onChange,
}: RunUsageLedgerOptions = {}): RunUsageLedger {
  let steps: StepUsage[] = [...recorded];
  const add = (step: StepUsage): void => {
    steps = addStepUsage(steps, step);
    onChange?.(steps);
  };
  const addMetered = (step: string, usage: MeteredUsage): void => {
    if (usage.calls + usage.unknownCalls === 0) return;
    add(stepUsage({ step, usage }));
  };
  return {
    report: (options) => add(stepUsage(options)),
    async measure(step, work) {
      const meter = createUsageMeter();
      try {
        return await meter.run(work);
      } finally {
        addMetered(step, meter.usage());
      }
    },
    addMetered,
    usage: () => sumRunUsage(steps),
  };
}
