import { formatLogLine } from '../../log-format';
import { followFile } from '../../log-tail';
import type { FleetPaths } from '../../paths';
import { stopProcessGroup } from '../../processes';
import { clearDownService } from '../../service-health';
import { removeState, type FleetState } from '../../state-file';
import { stopFleet } from '../../stop-fleet';
import { formatDuration, padEnd } from '../../terminal';
import type { CommandContext } from '../command';
import type { Started } from './launch';
import type { Plan } from './plan';

/**
 * How to stop what a run started: a fresh fleet is stopped whole (and its state removed); into
 * a running fleet, only what this run started (their entries stay: `status` shows them down and
 * `up` starts them again).
 */
export function stopperFor({
  fresh,
  state,
  paths,
  started,
}: {
  fresh: boolean;
  state: FleetState;
  paths: FleetPaths;
  started: Started[];
}): () => Promise<void> {
  return async () => {
    if (fresh) {
      await stopFleet({ state, graceMs: 10_000 });
      await removeState(paths.stateFile);
      return;
    }
    await Promise.all(
      started.map((entry) => stopProcessGroup({ pid: entry.process.pid, graceMs: 10_000 })),
    );
  };
}

/** Stops what is to be started again: restarted services gracefully, hung ones too. */
export async function stopBeforeStart(
  context: CommandContext,
  { toStart, graceMs }: { toStart: Plan[]; graceMs: number },
): Promise<void> {
  const { io, palette } = context;
  await Promise.all(
    toStart.map(async (plan) => {
      if (plan.kind === 'revive') {
        await clearDownService(plan.entry, plan.health, { graceMs });
      } else if (plan.kind === 'restart') {
        io.stderr.write(`Stopping ${plan.service.name} (pid ${plan.entry.pid})…\n`);
        const outcome = await stopProcessGroup({ pid: plan.entry.pid, graceMs });
        io.stderr.write(
          outcome === 'killed'
            ? palette.yellow(
                `  killed ${plan.service.name} (pid ${plan.entry.pid}): it did not stop within ${formatDuration(graceMs)} after SIGTERM\n`,
              )
            : `  ${outcome === 'stopped' ? 'stopped' : 'was not running:'} ${plan.service.name} (pid ${plan.entry.pid})\n`,
        );
      }
    }),
  );
}

/** Streams the logs of the started services, each prefixed with its name, until Ctrl-C. */
export async function streamForeground(
  context: CommandContext,
  started: Started[],
  stops: string,
): Promise<void> {
  const { io, palette, signal } = context;
  const width = Math.max(...started.map((entry) => entry.service.name.length));
  const colours = [palette.cyan, palette.magenta, palette.blue, palette.yellow, palette.green];
  io.stdout.write(`\n${palette.dim(`Streaming logs; Ctrl-C stops ${stops}.`)}\n`);
  for (const entry of started) {
    void entry.process.exited.then((exit) => {
      if (signal.aborted) return;
      io.stderr.write(
        `${palette.red(`${entry.service.name} exited`)} (${exit.signal ?? `code ${String(exit.code)}`}); the others keep running.\n`,
      );
    });
  }
  await Promise.all(
    started.map((entry, index) => {
      const colour = colours[index % colours.length] ?? palette.cyan;
      const prefix = `${colour(padEnd(entry.service.name, width))} ${palette.dim('|')} `;
      return followFile({
        file: entry.logFile,
        from: entry.process.logOffset,
        signal,
        onLine: (line) => {
          io.stdout.write(`${prefix}${formatLogLine({ line, color: palette.enabled })}\n`);
        },
      });
    }),
  );
}
