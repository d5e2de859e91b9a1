import { constants } from 'node:fs';
import { lstat, open, readdir } from 'node:fs/promises';
import path from 'node:path';

/** A file the program wrote into its work directory. */
export interface WrittenFile {
  /** The path relative to the work directory, with `/` separators. */
  filename: string;
  mediaType: string;
  bytes: Buffer;
}

/** A file that was written but not returned, and why. */
export interface SkippedFile {
  filename: string;
  reason: string;
}

/** Options for {@link collectFiles}. */
export interface CollectFilesOptions {
  workDir: string;
  /** Names (relative) not to return: the program itself, its inputs. */
  exclude?: ReadonlySet<string>;
  /** @default 16 */
  maxFiles?: number;
  /** Total bytes returned. @default 8388608 (8 MiB) */
  maxTotalBytes?: number;
  /** How deep subdirectories are followed. @default 3 */
  maxDepth?: number;
}

const MEDIA_TYPES: Readonly<Record<string, string>> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.svg': 'image/svg+xml',
  '.webp': 'image/webp',
  '.pdf': 'application/pdf',
  '.csv': 'text/csv',
  '.tsv': 'text/tab-separated-values',
  '.json': 'application/json',
  '.txt': 'text/plain',
  '.md': 'text/markdown',
  '.html': 'text/html',
  '.xml': 'application/xml',
  '.py': 'text/x-python',
};

/** The media type for a file name by its extension; `application/octet-stream` otherwise. */
export function mediaTypeOf(filename: string): string {
  return MEDIA_TYPES[path.extname(filename).toLowerCase()] ?? 'application/octet-stream';
}

/**
 * Reads the files a sandboxed program left in its work directory, in name order. Only regular files
 * are read, each opened with `O_NOFOLLOW` after an `lstat`: a symlink the program planted (to a host
 * file the sandbox could not see) is reported, never followed. Files over the count or byte budget
 * are reported as skipped.
 *
 * @example
 * const { files, skipped } = await collectFiles({ workDir, exclude: new Set(['main.py']) });
 */
export async function collectFiles({
  workDir,
  exclude = new Set(),
  maxFiles = 16,
  maxTotalBytes = 8 * 1024 * 1024,
  maxDepth = 3,
}: CollectFilesOptions): Promise<{ files: WrittenFile[]; skipped: SkippedFile[] }> {
  const files: WrittenFile[] = [];
  const skipped: SkippedFile[] = [];
  let total = 0;

  async function visit(relative: string, depth: number): Promise<void> {
    const entries = (await readdir(path.join(workDir, relative))).sort();
    for (const name of entries) {
      const filename = relative === '' ? name : `${relative}/${name}`;
      if (exclude.has(filename)) continue;
      const absolute = path.join(workDir, filename);
      const info = await lstat(absolute);
      if (info.isDirectory()) {
        if (depth < maxDepth) await visit(filename, depth + 1);
        else skipped.push({ filename, reason: 'directory nested too deep' });
        continue;
      }
      if (!info.isFile()) {
        skipped.push({
          filename,
          reason: info.isSymbolicLink() ? 'symbolic link (not followed)' : 'not a regular file',
        });
        continue;
      }
      if (files.length >= maxFiles) {
        skipped.push({ filename, reason: `more than ${maxFiles} files` });
        continue;
      }
      if (total + info.size > maxTotalBytes) {
        skipped.push({ filename, reason: `over the ${maxTotalBytes}-byte budget for files` });
        continue;
      }
      const handle = await open(absolute, constants.O_RDONLY | constants.O_NOFOLLOW);
      try {
        const bytes = await handle.readFile();
        total += bytes.length;
        files.push({ filename, mediaType: mediaTypeOf(filename), bytes });
      } finally {
        await handle.close();
      }
    }
  }

  await visit('', 0);
  return { files, skipped };
}
