import { z } from 'zod';

/** How long the server gets after SIGTERM once our process is gone, before the group is killed. */
export const ORPHAN_GRACE_MS = 1000;
/** How often the watchdog also checks that its parent is still the process that started it. */
export const PARENT_POLL_MS = 1000;

/**
 * The launcher a stdio server runs under, as `node -e WATCHDOG_SCRIPT -- <command> <args…>`.
 *
 * It leads the server's process group and starts the server in it with the same stdin, stdout and
 * stderr (inherited: no copy of the traffic), so the transport talks to the server directly. Its
 * fd 3 is one end of a socket pair whose other end only our process holds: the kernel closes that
 * end however our process dies, SIGKILL included, and the watchdog reads EOF. Then (or when its
 * parent pid changes, checked every second as a second line of defence) it sends SIGTERM to the
 * group, waits {@link ORPHAN_GRACE_MS}, and kills the group, itself included.
 *
 * While our process lives the watchdog only follows the server: it reports the server's pid (or
 * the spawn error) on fd 3 as one JSON line, ignores the group signals `close()` sends (they are
 * for the server), and exits with the server's exit code, after which the transport kills what is
 * left of the group as before.
 */
export const WATCHDOG_SCRIPT = String.raw`'use strict';
process.title = 'fleet-mcp-watchdog';
const { spawn } = require('node:child_process');
const { Socket } = require('node:net');
const { constants } = require('node:os');
const [command, ...args] = process.argv.slice(1);
const parentPid = process.ppid;
let orphaned = false;
const control = new Socket({ fd: 3, readable: true, writable: true });
const report = (message) => {
  if (!control.destroyed) control.write(JSON.stringify(message) + '\n');
};
const killGroup = (signal) => {
  try {
    process.kill(-process.pid, signal);
  } catch {}
};
const parentGone = () => {
  if (orphaned) return;
  orphaned = true;
  killGroup('SIGTERM');
  setTimeout(() => {
    killGroup('SIGKILL');
    process.exit(1);
  }, ${ORPHAN_GRACE_MS});
};
control.on('end', parentGone);
control.on('close', parentGone);
control.on('error', parentGone);
control.resume();
setInterval(() => {
  if (process.ppid !== parentPid) parentGone();
}, ${PARENT_POLL_MS}).unref();
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(signal, () => {});
const child = spawn(command, args, { stdio: ['inherit', 'inherit', 'inherit', 'ignore'] });
child.once('spawn', () => report({ pid: child.pid }));
child.once('error', (error) => {
  report({ error: error.message });
  control.end(() => process.exit(127));
});
child.once('exit', (code, signal) => {
  if (orphaned) killGroup('SIGKILL');
  process.exit(code ?? 128 + (constants.signals[signal] ?? 0));
});
`;

/** What the watchdog writes on fd 3, once: the server's pid, or why it could not start. */
export const watchdogReportSchema = z.union([
  z.object({ pid: z.number().int().positive() }),
  z.object({ error: z.string() }),
]);
export type WatchdogReport = z.infer<typeof watchdogReportSchema>;
