import { readdir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';

/**
 * The file name extensions the RAG agent ingests (its `detectDocType`), with the media type sent
 * beside each file.
 */
export const DOCUMENT_MEDIA_TYPES: Readonly<Record<string, string>> = {
  '.pdf': 'application/pdf',
  '.docx': 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  '.xlsx': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  '.csv': 'text/csv',
  '.txt': 'text/plain',
  '.text': 'text/plain',
  '.md': 'text/markdown',
  '.markdown': 'text/markdown',
  '.html': 'text/html',
  '.htm': 'text/html',
};

/** True when the file's extension is one the RAG agent ingests. */
export function isDocumentFile(file: string): boolean {
  return Object.hasOwn(DOCUMENT_MEDIA_TYPES, path.extname(file).toLowerCase());
}

/** The media type sent with a file (`application/octet-stream` for unknown extensions). */
export function documentMediaType(file: string): string {
  return DOCUMENT_MEDIA_TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
}

/** A path given on the command line that yields nothing to send, and why. */
export interface PathProblem {
  /** The path as given. */
  path: string;
  reason: string;
}

/** Options for {@link expandDocumentPaths}. */
export interface ExpandDocumentPathsOptions {
  /** Files and directories, as given on the command line. */
  paths: readonly string[];
  /** What relative paths are relative to. */
  cwd: string;
  /** File names to leave out wherever they are found (e.g. `questions.json`). */
  exclude?: readonly string[];
}

/** The result of {@link expandDocumentPaths}. */
export interface ExpandedDocumentPaths {
  /** Absolute paths of the files to send: sorted within each directory, each file once. */
  files: string[];
  problems: PathProblem[];
}

/** Folders never searched: hidden ones (`.git`, `.fleet`) and installed packages. */
function skipDirectory(name: string): boolean {
  return name.startsWith('.') || name === 'node_modules';
}

const SUPPORTED_LIST = Object.keys(DOCUMENT_MEDIA_TYPES).join(' ');

/**
 * Turns command-line paths into the document files to send: a file is taken as it is when its
 * extension is supported; a directory is searched recursively for supported files (hidden folders
 * and `node_modules` skipped, symbolic links followed once). Missing paths, unsupported files and
 * directories without a document are reported as problems, not thrown.
 *
 * @example
 * const { files, problems } = await expandDocumentPaths({ paths: ['docs/', 'q3.xlsx'], cwd: process.cwd() });
 */
export async function expandDocumentPaths({
  paths,
  cwd,
  exclude = [],
}: ExpandDocumentPathsOptions): Promise<ExpandedDocumentPaths> {
  const files: string[] = [];
  const seen = new Set<string>();
  const problems: PathProblem[] = [];
  const excluded = new Set(exclude);
  const add = async (file: string): Promise<void> => {
    const real = await realpath(file);
    if (seen.has(real)) return;
    seen.add(real);
    files.push(file);
  };

  async function walk(directory: string, visited: Set<string>): Promise<number> {
    const real = await realpath(directory);
    if (visited.has(real)) return 0;
    visited.add(real);
    const entries = await readdir(directory, { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    let found = 0;
    for (const entry of entries) {
      const full = path.join(directory, entry.name);
      let isDirectory = entry.isDirectory();
      let isFile = entry.isFile();
      if (entry.isSymbolicLink()) {
        const target = await stat(full).catch(() => undefined);
        isDirectory = target?.isDirectory() ?? false;
        isFile = target?.isFile() ?? false;
      }
      if (isDirectory && !skipDirectory(entry.name)) {
        found += await walk(full, visited);
      } else if (isFile && isDocumentFile(entry.name) && !excluded.has(entry.name)) {
        await add(full);
        found += 1;
      }
    }
    return found;
  }

  for (const given of paths) {
    const absolute = path.resolve(cwd, given);
    const found = await stat(absolute).then(
      (info) => ({ info, error: undefined }),
      (error: NodeJS.ErrnoException) => ({ info: undefined, error }),
    );
    const info = found.info;
    if (info === undefined) {
      problems.push({
        path: given,
        reason: found.error.code === 'ENOENT' ? 'no such file or directory' : found.error.message,
      });
    } else if (info.isDirectory()) {
      const count = await walk(absolute, new Set());
      if (count === 0) {
        problems.push({ path: given, reason: `no documents in it (${SUPPORTED_LIST})` });
      }
    } else if (!isDocumentFile(absolute)) {
      problems.push({
        path: given,
        reason: `not a supported document type (supported: ${SUPPORTED_LIST})`,
      });
    } else {
      await add(absolute);
    }
  }
  return { files, problems };
}
