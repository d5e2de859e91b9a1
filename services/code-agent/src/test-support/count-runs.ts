import type { Sandbox } from '../sandbox';

/** A sandbox that records the code of every run (the availability probe is not counted). */
export function countRuns(sandbox: Sandbox): { sandbox: Sandbox; runs: string[] } {
  const runs: string[] = [];
  return {
    runs,
    sandbox: {
      mode: sandbox.mode,
      limits: sandbox.limits,
      check: () => sandbox.check(),
      memoryBound: () => sandbox.memoryBound(),
      run: (options) => {
        runs.push(options.code);
        return sandbox.run(options);
      },
    },
  };
}
