import { readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

/** Deepest directory level the walk descends to. */
const MAX_DEPTH = 32;

function segmentPattern(segment: string): RegExp {
  const escaped = segment.replace(/[.+^${}()|[\]\\?]/g, '\\$&').replace(/\*/g, '[^/]*');
  return new RegExp(`^${escaped}$`);
}

function matches(parts: string[], pattern: string[]): boolean {
  const [head, ...rest] = pattern;
  if (head === undefined) return parts.length === 0;
  if (head === '**') {
    for (let skip = 0; skip <= parts.length; skip += 1) {
      if (matches(parts.slice(skip), rest)) return true;
    }
    return false;
  }
  const [part, ...others] = parts;
  return part !== undefined && segmentPattern(head).test(part) && matches(others, rest);
}

/**
 * `fs.globSync(pattern, { cwd })` for one pattern: the matching files and directories under `cwd`,
 * relative to it.
 *
 * @example
 * globSync('**' + '/checks.json', { cwd: resultsDir }); // ['initialize-2026…/checks.json', …]
 */
export function globSync(pattern: string, options: { cwd?: string } = {}): string[] {
  const cwd = options.cwd ?? process.cwd();
  const wanted = pattern.split('/').filter((part) => part !== '');
  const found: string[] = [];
  const walk = (directory: string, depth: number): void => {
    if (depth > MAX_DEPTH) return;
    for (const entry of readdirSync(directory, { withFileTypes: true })) {
      const path = join(directory, entry.name);
      const parts = relative(cwd, path).split(sep);
      if (matches(parts, wanted)) found.push(parts.join('/'));
      if (entry.isDirectory()) walk(path, depth + 1);
    }
  };
  walk(cwd, 0);
  return found;
}
