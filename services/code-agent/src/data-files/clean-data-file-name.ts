import path from 'node:path';
import { MAX_DATA_FILE_NAME_LENGTH } from '../sandbox';

/** Longest extension kept when a long name is shortened. */
const MAX_EXTENSION_LENGTH = 16;

/** Cuts `name` to the length limit, keeping a short extension. */
function bound(name: string, limit = MAX_DATA_FILE_NAME_LENGTH): string {
  if (name.length <= limit) return name;
  const extension = path.extname(name);
  const kept = extension.length <= MAX_EXTENSION_LENGTH ? extension : '';
  return `${name.slice(0, limit - kept.length)}${kept}`;
}

/**
 * A safe, unique name in `/data` for a file part's `filename`: its base name only (whatever
 * follows the last `/` or `\`), without control characters, with runs of dots made one (no `..`),
 * without leading dots or spaces, at most 100 characters (the extension kept). An empty result
 * becomes `file-<n>`. A name already in `taken` gets `-2`, `-3`, … before its extension. The name
 * is added to `taken`.
 *
 * @example
 * cleanDataFileName('../../etc/passwd', { index: 0, taken: new Set() }); // 'passwd'
 * cleanDataFileName('.env', { index: 1, taken: new Set() }); // 'env'
 */
export function cleanDataFileName(
  filename: string | undefined,
  { index, taken }: { index: number; taken: Set<string> },
): string {
  const base = (filename ?? '').split(/[/\\]/).at(-1) ?? '';
  const cleaned = base
    .normalize('NFC')
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f]/g, '')
    .replace(/\.{2,}/g, '.')
    .replace(/^[\s.]+/, '')
    .trim();
  const name = bound(cleaned === '' ? `file-${index + 1}` : cleaned);
  let unique = name;
  for (let copy = 2; taken.has(unique); copy += 1) {
    const extension = path.extname(name);
    const suffix = `-${copy}${extension}`;
    unique = `${bound(name.slice(0, name.length - extension.length), MAX_DATA_FILE_NAME_LENGTH - suffix.length)}${suffix}`;
  }
  taken.add(unique);
  return unique;
}
