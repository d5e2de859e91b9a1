import { chmod, chown, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ValidationError } from '@fleet/errors';
import type { DataFile } from './sandbox';

/** Where the step's own files appear inside the sandbox, read-only. */
export const SANDBOX_DATA_DIR = '/data';

/** The environment variable that names the data directory (`/data` in the sandbox). */
export const DATA_DIR_VARIABLE = 'DATA_DIR';

/** Longest name of a data file, in characters. */
export const MAX_DATA_FILE_NAME_LENGTH = 100;

/**
 * Whether `name` may be written into the data directory as it is: one path segment (no `/`, `\`
 * or NUL), no leading dot (so neither `.` nor `..` nor a hidden file), no `..` anywhere, no
 * control characters, at most {@link MAX_DATA_FILE_NAME_LENGTH} characters.
 *
 * @example
 * isSafeDataFileName('sales.csv'); // true
 * isSafeDataFileName('../etc/passwd'); // false
 */
export function isSafeDataFileName(name: string): boolean {
  return (
    name.length > 0 &&
    name.length <= MAX_DATA_FILE_NAME_LENGTH &&
    !name.startsWith('.') &&
    !name.includes('..') &&
    // eslint-disable-next-line no-control-regex
    !/[/\\\u0000-\u001f\u007f]/.test(name)
  );
}

/**
 * Writes the step's files into `dataDir` (a fresh, empty directory of the run), each created
 * exclusively (`wx`) and read-only, then closes the directory to writes and, when the run switches
 * to its own user, hands it to that user. Names are checked again here, whoever cleaned them: a
 * name that is not a plain base name is refused (ValidationError) before anything is written.
 *
 * @example
 * await writeDataDir(dataDir, [{ name: 'sales.csv', mediaType: 'text/csv', bytes }], undefined);
 */
export async function writeDataDir(
  dataDir: string,
  files: readonly DataFile[],
  uid: number | undefined,
): Promise<void> {
  const names = new Set<string>();
  for (const { name } of files) {
    if (!isSafeDataFileName(name) || names.has(name)) {
      throw new ValidationError(
        `The data file name ${JSON.stringify(name.slice(0, 120))} is not a unique plain file name; nothing was run.`,
      );
    }
    names.add(name);
  }
  await mkdir(dataDir, { mode: 0o700 });
  for (const file of files) {
    const target = path.join(dataDir, file.name);
    // Belt and braces: the file lands directly in the data directory.
    if (path.dirname(target) !== dataDir) {
      throw new ValidationError(`The data file name ${JSON.stringify(file.name)} leaves /data.`);
    }
    await writeFile(target, file.bytes, { flag: 'wx', mode: 0o400 });
    if (uid !== undefined) await chown(target, uid, uid);
  }
  if (uid !== undefined) await chown(dataDir, uid, uid);
  await chmod(dataDir, 0o500);
}
