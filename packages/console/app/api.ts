/**
 * The console's only way to the fleet: the gateway's public API under `/v1`, with the API key the
 * person signed in with. The key lives in `sessionStorage` (this tab only, gone when it closes) and
 * travels only in the `Authorization` header, never in a URL. Every request asks the browser not to
 * cache (`cache: 'no-store'`), and the gateway answers `/v1` with `Cache-Control: no-store`.
 */
import { signal } from '@preact/signals';
import type { DocumentView, SessionStatus } from '../src/wire';

const KEY_STORAGE = 'fleet.console.apiKey';

function readStoredKey(): string | undefined {
  try {
    return sessionStorage.getItem(KEY_STORAGE) ?? undefined;
  } catch {
    return undefined;
  }
}

/** The signed-in key; undefined when signed out. */
export const apiKey = signal<string | undefined>(readStoredKey());

/** Why the person was signed out, shown on the sign-in page (a refused key, say). */
export const signOutReason = signal<string | undefined>(undefined);

export function signIn(key: string): void {
  sessionStorage.setItem(KEY_STORAGE, key);
  signOutReason.value = undefined;
  apiKey.value = key;
}

export function signOut(reason?: string): void {
  sessionStorage.removeItem(KEY_STORAGE);
  signOutReason.value = reason;
  apiKey.value = undefined;
}

/** An error the API answered, from its OpenAI envelope `{ error: { message, type, param, code } }`. */
export class ApiError extends Error {
  readonly status: number;
  readonly type: string | undefined;
  readonly code: string | undefined;
  readonly param: string | undefined;

  constructor(
    message: string,
    details: { status: number; type?: string; code?: string; param?: string },
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = details.status;
    this.type = details.type;
    this.code = details.code;
    this.param = details.param;
  }
}

function stringOr(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The API's error from a failed response's body (text), or a plain one naming the status. */
export function errorFromBody(status: number, text: string): ApiError {
  let message = `The gateway answered ${status}.`;
  const details: { status: number; type?: string; code?: string; param?: string } = { status };
  try {
    const body = JSON.parse(text) as { error?: Record<string, unknown> };
    const error = body.error;
    if (error !== undefined && error !== null && typeof error === 'object') {
      message = stringOr(error['message']) ?? message;
      const type = stringOr(error['type']);
      const code = stringOr(error['code']);
      const param = stringOr(error['param']);
      if (type !== undefined) details.type = type;
      if (code !== undefined) details.code = code;
      if (param !== undefined) details.param = param;
    }
  } catch {
    if (text.trim() !== '' && text.length < 300) message = `${message} ${text.trim()}`;
  }
  return new ApiError(message, details);
}

/** The message to show for any failure: the API's own words, or the network's. */
export function describeError(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  if (error instanceof DOMException && error.name === 'AbortError') return 'Stopped.';
  if (error instanceof TypeError) return `The gateway could not be reached (${error.message}).`;
  return error instanceof Error ? error.message : String(error);
}

/** Headers every API request carries: the key. */
export function authHeaders(key: string | undefined = apiKey.value): Record<string, string> {
  if (key === undefined) throw new ApiError('Sign in first.', { status: 401 });
  return { Authorization: `Bearer ${key}` };
}

/** A 401 means the key is no longer good: back to the sign-in page, saying why. */
export function handleUnauthorized(error: ApiError): void {
  if (error.status === 401) signOut(error.message);
}

export interface ApiOptions {
  method?: 'GET' | 'POST' | 'DELETE';
  /** Sent as JSON. */
  json?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** Use this key instead of the signed-in one (the sign-in check). */
  key?: string;
}

/**
 * One JSON request to `/v1{path}`.
 * @throws ApiError for any non-2xx answer (a 401 also signs the person out, unless `key` was given)
 */
export async function api<T>(path: string, options: ApiOptions = {}): Promise<T> {
  const headers: Record<string, string> = {
    ...authHeaders(options.key ?? apiKey.value),
    Accept: 'application/json',
    ...options.headers,
  };
  const init: RequestInit = { method: options.method ?? 'GET', headers, cache: 'no-store' };
  if (options.json !== undefined) {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(options.json);
  }
  if (options.signal !== undefined) init.signal = options.signal;
  const response = await fetch(`/v1${path}`, init);
  const text = await response.text();
  if (!response.ok) {
    const error = errorFromBody(response.status, text);
    if (options.key === undefined) handleUnauthorized(error);
    throw error;
  }
  return JSON.parse(text) as T;
}

// ---- what the API answers: src/wire.ts (the gateway checks its views against it) ---------------

export type * from '../src/wire';

export const ACTIVE_STATUSES: ReadonlySet<SessionStatus> = new Set([
  'running',
  'waiting_approval',
  'waiting_input',
]);

/**
 * Uploads one file to `/v1/documents` (multipart, field `file`), reporting the bytes sent as they
 * go: `fetch` cannot tell upload progress, XMLHttpRequest can.
 */
export function uploadDocument(
  file: File,
  {
    onProgress,
    signal,
  }: { onProgress: (sent: number, total: number) => void; signal?: AbortSignal },
): Promise<DocumentView> {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open('POST', '/v1/documents');
    for (const [name, value] of Object.entries(authHeaders()))
      request.setRequestHeader(name, value);
    request.setRequestHeader('Accept', 'application/json');
    request.upload.addEventListener('progress', (event) => {
      onProgress(event.loaded, event.lengthComputable ? event.total : file.size);
    });
    request.addEventListener('load', () => {
      if (request.status >= 200 && request.status < 300) {
        try {
          resolve(JSON.parse(request.responseText) as DocumentView);
        } catch {
          reject(new ApiError('The gateway answered something that is not JSON.', { status: 502 }));
        }
        return;
      }
      const error = errorFromBody(request.status, request.responseText);
      handleUnauthorized(error);
      reject(error);
    });
    request.addEventListener('error', () => {
      reject(new TypeError('the upload was interrupted'));
    });
    request.addEventListener('abort', () => {
      reject(new DOMException('The upload was stopped.', 'AbortError'));
    });
    signal?.addEventListener('abort', () => request.abort(), { once: true });
    const form = new FormData();
    form.append('file', file, file.name);
    request.send(form);
  });
}
