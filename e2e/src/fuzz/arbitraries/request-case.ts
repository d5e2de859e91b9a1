import fc from 'fast-check';
import type { RawRequest } from '../support/raw-http';
import { preview } from './common';

/** A generated request and the facts the invariants need about it. */
export interface RequestCase extends RawRequest {
  /** Why it was built (shown in counterexamples). */
  label: string;
  /** Read an SSE answer only until this shows (an approval waits for a person: let go there). */
  stopOn?: RegExp;
}

/** The request as a short text: what fast-check prints for a counterexample (not megabytes). */
export function describeRequest(request: RequestCase): string {
  const headers = request.headers
    .map(([name, value]) => `${name}: ${preview(value, 160)}`)
    .join('\n    ');
  const body = request.body ?? Buffer.alloc(0);
  const framing = [
    request.truncateAt === undefined ? '' : `, cut off after ${request.truncateAt} body bytes`,
    request.chunkSize === undefined ? '' : `, chunked by ${request.chunkSize}`,
  ].join('');
  return [
    `[${request.label}] ${request.method} ${preview(request.path, 200)}`,
    `    ${headers}`,
    `    body (${body.length} bytes${framing}): ${preview(body, 600)}`,
  ].join('\n');
}

/** Adds the short description fast-check prints (`fc.toStringMethod`). */
export function printable<T extends RequestCase>(request: T): T {
  return Object.assign(request, { [fc.toStringMethod]: () => describeRequest(request) });
}
