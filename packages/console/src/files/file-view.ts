/**
 * Run files as the console reads them: the files a run's steps made and the files its request
 * brought, listed by `GET /v1/sessions/{id}` (`files`) and announced on the live stream
 * (`file-ready`), their bytes at `GET /v1/files/{id}/content` (the API key required, like every
 * `/v1` route).
 */

import type { FileView } from '../wire';

/** A run file as a session lists it (`GET /v1/sessions/{id}`): the API's own view. */
export type { FileView };

/** A run file as the stream's `file-ready` event and the run's result carry it. */
export interface RunFileWire {
  id: string;
  name: string;
  mediaType: string;
  size: number;
  sha256?: string | undefined;
  source: 'step' | 'attachment';
  sessionId?: string | undefined;
  nodeId?: string | undefined;
  agent?: string | undefined;
  createdAt: string;
  expiresAt: string;
}

/** A file a step made that the run did not keep, from the stream's `file-refused` event. */
export interface RefusedFile {
  name: string;
  reason: string;
  nodeId?: string | undefined;
  agent?: string | undefined;
}

/** A run file id: `file-` and 32 lowercase hex digits. */
export const FILE_ID_PATTERN = /^file-[0-9a-f]{32}$/;

/** The gateway path of a run file's bytes. */
export function fileContentPath(id: string): string {
  return `/v1/files/${id}/content`;
}

const CONTENT_PATH = /^\/v1\/files\/(file-[0-9a-f]{32})\/content$/;

/**
 * The file id a link or image in an answer points at, when it is a run file's content path
 * (`/v1/files/file-…/content`, relative, or absolute on `origin`); undefined for anything else.
 */
export function fileIdFromUrl(url: string, origin?: string): string | undefined {
  const trimmed = url.trim();
  let path = trimmed;
  if (origin !== undefined && trimmed.startsWith(`${origin}/`)) path = trimmed.slice(origin.length);
  return CONTENT_PATH.exec(path)?.[1];
}

/** The view of a file the stream announced. */
export function fileViewOf(file: RunFileWire): FileView {
  const view: FileView = {
    id: file.id,
    name: file.name,
    mediaType: file.mediaType,
    size: file.size,
    source: file.source,
    createdAt: file.createdAt,
    expiresAt: file.expiresAt,
    url: fileContentPath(file.id),
  };
  if (file.nodeId !== undefined) view.nodeId = file.nodeId;
  if (file.agent !== undefined) view.agent = file.agent;
  return view;
}

/** Media types shown as images (never SVG or HTML: they can carry script). */
export const INLINE_IMAGE_TYPES: ReadonlySet<string> = new Set([
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
]);

/** Media types only ever downloaded, never shown: they can carry script. */
export const ACTIVE_TYPES: ReadonlySet<string> = new Set(['text/html', 'image/svg+xml']);

/** How the console shows a file of this media type beside its download. */
export type FilePreviewKind = 'image' | 'table' | 'text' | 'none';

/** The media type without parameters, lowercased. */
export function baseMediaType(mediaType: string): string {
  return (mediaType.split(';')[0] ?? '').trim().toLowerCase();
}

/** Which preview a file gets: images inline, CSV/TSV as a table, text/JSON/Markdown as text. */
export function previewKind(mediaType: string): FilePreviewKind {
  const type = baseMediaType(mediaType);
  if (ACTIVE_TYPES.has(type)) return 'none';
  if (INLINE_IMAGE_TYPES.has(type)) return 'image';
  if (type === 'text/csv' || type === 'text/tab-separated-values') return 'table';
  if (type === 'text/plain' || type === 'text/markdown' || type === 'application/json')
    return 'text';
  return 'none';
}

/** Keeps the first of each id, in order: the session's list and the stream's announcements. */
export function mergeFiles(...lists: readonly (readonly FileView[] | undefined)[]): FileView[] {
  const seen = new Set<string>();
  const merged: FileView[] = [];
  for (const list of lists) {
    for (const file of list ?? []) {
      if (seen.has(file.id)) continue;
      seen.add(file.id);
      merged.push(file);
    }
  }
  return merged;
}

function optionalString(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * A run file from the stream (`file-ready`'s `file`, the run result's `files`), when it has the
 * fields the console needs; undefined for anything else (the stream is read, not trusted).
 */
export function readRunFile(value: unknown): RunFileWire | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const record = value as Record<string, unknown>;
  const id = record['id'];
  const name = optionalString(record['name']);
  const mediaType = optionalString(record['mediaType']);
  const size = record['size'];
  if (typeof id !== 'string' || !FILE_ID_PATTERN.test(id)) return undefined;
  if (name === undefined || mediaType === undefined) return undefined;
  if (typeof size !== 'number' || !Number.isFinite(size) || size < 0) return undefined;
  const file: RunFileWire = {
    id,
    name,
    mediaType,
    size,
    source: record['source'] === 'attachment' ? 'attachment' : 'step',
    createdAt: optionalString(record['createdAt']) ?? '',
    expiresAt: optionalString(record['expiresAt']) ?? '',
  };
  const nodeId = optionalString(record['nodeId']);
  const agent = optionalString(record['agent']);
  if (nodeId !== undefined) file.nodeId = nodeId;
  if (agent !== undefined) file.agent = agent;
  return file;
}

/** A `file-refused` event's file, when it names one and says why. */
export function readRefusedFile(value: Record<string, unknown>): RefusedFile | undefined {
  const name = optionalString(value['name']);
  const reason = optionalString(value['reason']);
  if (name === undefined || reason === undefined) return undefined;
  const refused: RefusedFile = { name, reason };
  const nodeId = optionalString(value['nodeId']);
  const agent = optionalString(value['agent']);
  if (nodeId !== undefined) refused.nodeId = nodeId;
  if (agent !== undefined) refused.agent = agent;
  return refused;
}
