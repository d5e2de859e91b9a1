/**
 * Run files' bytes through the signed-in key: `GET /v1/files/{id}/content` needs the
 * `Authorization` header like every `/v1` route, so the page cannot point an `<img src>` or a link
 * at it. It fetches the bytes instead: an image becomes a `data:` URL (the console's
 * Content-Security-Policy allows `img-src 'self' data:`, not `blob:`), a download a short-lived
 * object URL clicked with the file's name, a preview text.
 */
import { api, authHeaders, errorFromBody, handleUnauthorized } from './api';
import { fileContentPath } from '../src/files/file-view';

/** Largest image shown inline (a larger one is a download only). */
export const MAX_INLINE_IMAGE_BYTES = 16 * 1024 * 1024;
/** Bytes of a text, CSV or JSON file read for its preview. */
export const MAX_PREVIEW_BYTES = 1024 * 1024;

/** A run file's bytes as the gateway sent them. */
export interface FetchedFile {
  blob: Blob;
  /** The answer's `Content-Type`, without parameters, lowercased. */
  mediaType: string;
}

/**
 * Fetches a run file's bytes.
 * @throws ApiError for a refused or missing file (a 401 also signs the person out)
 */
export async function fetchFile(id: string, signal?: AbortSignal): Promise<FetchedFile> {
  const init: RequestInit = { headers: authHeaders(), cache: 'no-store' };
  if (signal !== undefined) init.signal = signal;
  const response = await fetch(fileContentPath(encodeURIComponent(id)), init);
  if (!response.ok) {
    const error = errorFromBody(response.status, await response.text());
    handleUnauthorized(error);
    throw error;
  }
  const blob = await response.blob();
  const mediaType = (response.headers.get('content-type') ?? '').split(';')[0]?.trim() ?? '';
  return { blob, mediaType: mediaType.toLowerCase() };
}

/** The bytes as a `data:` URL of the given type. */
export function dataUrlOf(blob: Blob, mediaType: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.addEventListener('load', () => {
      if (typeof reader.result === 'string') resolve(reader.result);
      else reject(new Error('the file could not be read as a data URL'));
    });
    reader.addEventListener('error', () => reject(reader.error ?? new Error('unreadable file')));
    reader.readAsDataURL(new Blob([blob], { type: mediaType }));
  });
}

/**
 * A run file's name from `GET /v1/files/{id}` (OpenAI Files-shaped: `filename`); the id when the
 * gateway names none.
 */
export async function fileName(id: string): Promise<string> {
  const info = await api<{ filename?: unknown }>(`/files/${encodeURIComponent(id)}`);
  return typeof info.filename === 'string' && info.filename !== '' ? info.filename : id;
}

/**
 * Downloads a run file under its name (asked of the gateway when not given): the bytes are
 * fetched with the key, then saved through an
 * object URL (revoked shortly after) as `application/octet-stream`, so the browser saves and never
 * opens them (an HTML or SVG file cannot run in the page's origin).
 */
export async function downloadFile(id: string, name: string | undefined): Promise<void> {
  const [{ blob }, saveAs] = await Promise.all([
    fetchFile(id),
    name ?? fileName(id).catch(() => id),
  ]);
  const url = URL.createObjectURL(new Blob([blob], { type: 'application/octet-stream' }));
  try {
    const link = document.createElement('a');
    link.href = url;
    link.download = saveAs;
    link.rel = 'noopener';
    document.body.append(link);
    link.click();
    link.remove();
  } finally {
    // The click has handed the bytes to the download; the URL is no longer needed.
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  }
}
