import { formatDuration, padEnd, type OutputStream, type Palette } from './terminal';

/** Where one service is in its start-up. */
export type ProgressState = 'waiting' | 'ready' | 'failed';

interface Row {
  name: string;
  state: ProgressState;
  detail: string;
  startedAt: number;
  endedAt: number | undefined;
}

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/** Options for {@link ProgressBoard}. */
export interface ProgressBoardOptions {
  stream: OutputStream;
  names: readonly string[];
  palette: Palette;
}

/**
 * One line per service (waiting / ready / failed, with elapsed time). On a terminal the lines
 * are redrawn in place with a spinner; otherwise a line is printed whenever a service changes
 * state, so CI logs stay readable.
 */
export class ProgressBoard {
  readonly #stream: OutputStream;
  readonly #palette: Palette;
  readonly #rows: Row[];
  readonly #live: boolean;
  readonly #width: number;
  #frame = 0;
  #drawn = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor({ stream, names, palette }: ProgressBoardOptions) {
    this.#stream = stream;
    this.#palette = palette;
    this.#live = stream.isTTY === true;
    this.#width = Math.max(...names.map((name) => name.length), 7);
    const now = Date.now();
    this.#rows = names.map((name) => ({
      name,
      state: 'waiting',
      detail: 'starting',
      startedAt: now,
      endedAt: undefined,
    }));
    if (this.#live) {
      this.#draw();
      this.#timer = setInterval(() => {
        this.#frame = (this.#frame + 1) % SPINNER.length;
        this.#draw();
      }, 100);
      this.#timer.unref();
    } else {
      for (const row of this.#rows) this.#stream.write(`${this.#line(row)}\n`);
    }
  }

  /** Records a service's new state and detail (e.g. the last /readyz answer). */
  update(name: string, state: ProgressState, detail: string): void {
    const row = this.#rows.find((candidate) => candidate.name === name);
    if (row === undefined) return;
    const changed = row.state !== state;
    row.state = state;
    row.detail = detail;
    if (state !== 'waiting' && row.endedAt === undefined) row.endedAt = Date.now();
    if (this.#live) this.#draw();
    else if (changed) this.#stream.write(`${this.#line(row)}\n`);
  }

  /** Stops the spinner and leaves the final lines on screen. */
  stop(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    if (this.#live) this.#draw();
  }

  #line(row: Row): string {
    const palette = this.#palette;
    const elapsed = formatDuration((row.endedAt ?? Date.now()) - row.startedAt);
    const icon =
      row.state === 'ready'
        ? palette.green('✔')
        : row.state === 'failed'
          ? palette.red('✖')
          : this.#live
            ? palette.cyan(SPINNER[this.#frame] ?? '-')
            : '-';
    const state =
      row.state === 'ready'
        ? palette.green('ready')
        : row.state === 'failed'
          ? palette.red('failed')
          : palette.yellow('waiting');
    return `  ${icon} ${padEnd(palette.bold(row.name), this.#width)}  ${padEnd(state, 7)}  ${padEnd(palette.dim(elapsed), 8)}  ${row.detail}`;
  }

  #draw(): void {
    let out = this.#drawn > 0 ? `\u001b[${this.#drawn}A` : '';
    for (const row of this.#rows) out += `\u001b[2K${this.#line(row)}\n`;
    this.#drawn = this.#rows.length;
    this.#stream.write(out);
  }
}
