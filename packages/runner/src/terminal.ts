/** Terminal output helpers: the streams commands write to, colours, tables, durations. */

/** A stream a command writes to: `process.stdout` or a test's collector. */
export interface OutputStream {
  write(chunk: string): boolean;
  /** True on an interactive terminal: enables colours and live redraws. */
  readonly isTTY?: boolean;
}

/** Where a command writes. */
export interface CommandIo {
  readonly stdout: OutputStream;
  readonly stderr: OutputStream;
}

/** Colour functions; each returns its input unchanged when colours are off. */
export interface Palette {
  readonly enabled: boolean;
  readonly bold: (text: string) => string;
  readonly dim: (text: string) => string;
  readonly red: (text: string) => string;
  readonly green: (text: string) => string;
  readonly yellow: (text: string) => string;
  readonly blue: (text: string) => string;
  readonly magenta: (text: string) => string;
  readonly cyan: (text: string) => string;
}

function wrap(open: number, close: number, enabled: boolean): (text: string) => string {
  return (text) => (enabled ? `\u001b[${open}m${text}\u001b[${close}m` : text);
}

/** A palette that colours only when `enabled`. */
export function createPalette(enabled: boolean): Palette {
  return {
    enabled,
    bold: wrap(1, 22, enabled),
    dim: wrap(2, 22, enabled),
    red: wrap(31, 39, enabled),
    green: wrap(32, 39, enabled),
    yellow: wrap(33, 39, enabled),
    blue: wrap(34, 39, enabled),
    magenta: wrap(35, 39, enabled),
    cyan: wrap(36, 39, enabled),
  };
}

// eslint-disable-next-line no-control-regex -- matching ANSI escapes is the point
const ANSI_PATTERN = /\u001b\[[0-9;]*[A-Za-z]/g;

/** `text` without ANSI escapes. */
export function stripAnsi(text: string): string {
  return text.replace(ANSI_PATTERN, '');
}

/** Pads `text` to `width` visible characters (ANSI escapes do not count). */
export function padEnd(text: string, width: number): string {
  const visible = stripAnsi(text).length;
  return visible >= width ? text : text + ' '.repeat(width - visible);
}

/** `850 ms`, `2.3 s`, `1 min 5 s`. */
export function formatDuration(milliseconds: number): string {
  if (milliseconds < 1000) return `${Math.round(milliseconds)} ms`;
  if (milliseconds < 60_000) return `${(milliseconds / 1000).toFixed(1)} s`;
  const minutes = Math.floor(milliseconds / 60_000);
  const seconds = Math.round((milliseconds % 60_000) / 1000);
  return `${minutes} min ${seconds} s`;
}

/** Options for {@link renderTable}. */
export interface RenderTableOptions {
  headers: readonly string[];
  rows: readonly (readonly string[])[];
  /** Prefix for every line. @default '  ' */
  indent?: string;
}

/** A plain text table with aligned columns, one line per row, headers first. */
export function renderTable({ headers, rows, indent = '  ' }: RenderTableOptions): string {
  const widths = headers.map((header, column) =>
    Math.max(stripAnsi(header).length, ...rows.map((row) => stripAnsi(row[column] ?? '').length)),
  );
  const line = (cells: readonly string[]): string =>
    indent +
    cells
      .map((cell, column) =>
        column === cells.length - 1 ? cell : padEnd(cell, widths[column] ?? 0),
      )
      .join('  ');
  return [line(headers), ...rows.map(line)].join('\n');
}

/** A URL with its password (if any) replaced by `***`, for display. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password === '') return url;
    parsed.password = '***';
    return parsed.toString();
  } catch {
    return url;
  }
}

/** Options for {@link wrapText}. */
export interface WrapTextOptions {
  /** Maximum line length, not counting the indent. @default 100 */
  width?: number;
  /** Prefix of every line after the first. @default '' */
  indent?: string;
}

/** Breaks `text` at spaces so no line is longer than `width`; later lines get `indent`. */
export function wrapText(text: string, { width = 100, indent = '' }: WrapTextOptions = {}): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push((lines.length === 0 ? '' : indent) + line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  if (line !== '') lines.push((lines.length === 0 ? '' : indent) + line);
  return lines.join('\n');
}
