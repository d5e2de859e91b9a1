/** A one-line progress bar on a TTY (plain lines otherwise), written to stderr. */
export interface Progress {
  tick(): void;
  done(): void;
}

/** Creates a progress bar for `total` steps. */
export function createProgress({ label, total }: { label: string; total: number }): Progress {
  const stream = process.stderr;
  const started = Date.now();
  let count = 0;
  const render = (): void => {
    const width = 24;
    const filled = Math.round((count / Math.max(total, 1)) * width);
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    const line = `${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${count}/${total} ${seconds}s`;
    if (stream.isTTY) stream.write(`\r${line}`);
  };
  if (!stream.isTTY) stream.write(`${label}…\n`);
  render();
  return {
    tick() {
      count += 1;
      render();
    },
    done() {
      if (stream.isTTY) stream.write('\n');
      else stream.write(`${label}: done in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
    },
  };
}
