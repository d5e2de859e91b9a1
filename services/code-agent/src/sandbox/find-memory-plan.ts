import { planMemoryBound, type CgroupPreference, type MemoryPlan } from './memory-bound';
import { detectRunCgroups, type CgroupSupport } from './run-cgroup';
import type { SandboxMode } from './sandbox';
import type { SandboxLimits } from './sandbox-limits';

/** Options for {@link findMemoryPlan}. */
export interface FindMemoryPlanOptions {
  preference: CgroupPreference;
  limits: SandboxLimits;
  mode: SandboxMode;
}

/** The cgroup support found here, and the memory plan for runs. */
export interface FoundMemoryPlan {
  support: CgroupSupport;
  plan: MemoryPlan;
}

/** Finds the cgroup support the preference asks for. */
async function cgroupSupportFor(preference: CgroupPreference): Promise<CgroupSupport> {
  if (preference === 'off')
    return { version: 'none', reason: 'turned off (CODE_AGENT_CGROUP=off)' };
  return detectRunCgroups({
    versions: preference === 'v2' || preference === 'v1' ? [preference] : ['v2', 'v1'],
  });
}

/**
 * Finds how runs' memory is bounded here (detection makes and removes a probe cgroup, so the
 * sandbox does it once): `planMemoryBound` on the cgroup support found, except that a cgroup
 * asked for by name (`required`, `v2`, `v1`) and not found lets no code run.
 *
 * @example
 * const { support, plan } = await findMemoryPlan({ preference: 'auto', limits, mode: 'bubblewrap' });
 */
export async function findMemoryPlan({
  preference,
  limits,
  mode,
}: FindMemoryPlanOptions): Promise<FoundMemoryPlan> {
  const support = await cgroupSupportFor(preference);
  const plan = planMemoryBound({ limits, support, sandboxed: mode === 'bubblewrap' });
  if (support.version === 'none' && preference !== 'auto' && preference !== 'off') {
    return {
      support,
      plan: {
        ok: false,
        bound: plan.bound,
        reason: `CODE_AGENT_CGROUP=${preference} asks for a cgroup to bound each run's memory, but none can be had here: ${support.reason}. Nothing was run.`,
      },
    };
  }
  return { support, plan };
}
