import type { RawResponse } from './raw-http';

/** The error body shape a service documents. */
export type ErrorShape = 'openai' | 'json-rpc';

/** What one check found wrong (empty: every invariant held). */
export type Violations = string[];

/** Options for {@link checkResponse}. */
export interface CheckOptions {
  /** The property's name, for the report. */
  property: string;
  shape: ErrorShape;
  /**
   * The request body was cut off on purpose: the server may close without answering (it cannot
   * know the request), but it must not answer 5xx, and it must not keep the connection forever.
   */
  truncated?: boolean;
  /**
   * Tolerate (count, not fail) the gateway's 502 for an orchestrated run whose every step failed
   * (offline agents without a search provider or a mailbox): a documented end state, reported
   * separately so it can be decided (see the skipped property in fleet.fuzz.test.ts).
   */
  allowRunFailed?: boolean;
}

/** The gateway's answer when every step of an orchestrated run failed. */
export const EVERY_STEP_FAILED = /^The orchestrated run failed: Every step failed/;

const text = (body: Buffer, max = 600): string => {
  const value = body.toString('utf8');
  return value.length > max ? `${value.slice(0, max)}… (${body.length} bytes)` : value;
};

/** The response in a line or two, for failure messages and the report. */
export function describeResponse(response: RawResponse): string {
  const type = response.headers['content-type']?.[0] ?? 'no content-type';
  const status = response.status ?? 'no status';
  return `${status} (${response.outcome}, ${response.elapsedMs} ms, ${type}${response.error === undefined ? '' : `, socket ${response.error}`}): ${text(response.body)}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const nullableString = (value: unknown): boolean => value === null || typeof value === 'string';

/** `{ error: { message, type, param, code } }`, as OpenAI documents it. */
export function openAIEnvelopeProblem(body: unknown): string | undefined {
  if (!isObject(body) || !isObject(body['error'])) return 'not { error: { … } }';
  const error = body['error'];
  if (typeof error['message'] !== 'string') return 'error.message is not a string';
  if (typeof error['type'] !== 'string') return 'error.type is not a string';
  if (!('param' in error) || !nullableString(error['param']))
    return 'error.param is not string|null';
  if (!('code' in error) || !nullableString(error['code'])) return 'error.code is not string|null';
  return undefined;
}

/** The fleet's own error body `{ error: { code, message } }` (CONTRIBUTING.md convention 12). */
function fleetErrorShape(body: unknown): boolean {
  return (
    isObject(body) &&
    isObject(body['error']) &&
    typeof body['error']['code'] === 'string' &&
    typeof body['error']['message'] === 'string'
  );
}

/** The 503 analogue over JSON-RPC: -32603 whose ErrorInfo names SERVICE_UNAVAILABLE. */
function isUnavailableRpcError(error: Record<string, unknown>): boolean {
  const data = error['data'];
  return (
    Array.isArray(data) &&
    data.some((info) => isObject(info) && info['reason'] === 'SERVICE_UNAVAILABLE')
  );
}

/**
 * A JSON-RPC 2.0 response: `jsonrpc: "2.0"`, an `id`, and either `result` or an `error` with an
 * integer `code` and a string `message`. -32603 (the 500 of JSON-RPC) is a violation unless it is
 * a SERVICE_UNAVAILABLE (counted as a 503).
 */
export function jsonRpcProblem(body: unknown, stats?: { rpc503: number }): string | undefined {
  if (!isObject(body)) return 'not a JSON object';
  if (body['jsonrpc'] !== '2.0') return `jsonrpc is ${JSON.stringify(body['jsonrpc'])}`;
  if (!('id' in body)) return 'no id';
  if ('error' in body) {
    const error = body['error'];
    if (!isObject(error)) return 'error is not an object';
    if (!Number.isInteger(error['code']))
      return `error.code ${JSON.stringify(error['code'])} is not an integer`;
    if (typeof error['message'] !== 'string') return 'error.message is not a string';
    if (error['code'] === -32603) {
      if (isUnavailableRpcError(error)) {
        if (stats) stats.rpc503 += 1;
        return undefined;
      }
      return `JSON-RPC internal error -32603: ${JSON.stringify(error).slice(0, 400)}`;
    }
    return undefined;
  }
  if (!('result' in body)) return 'neither result nor error';
  return undefined;
}

/** The `data:` payloads of an SSE body, with the event name each came under. */
export function sseEvents(body: Buffer): { event: string; data: string }[] {
  const events: { event: string; data: string }[] = [];
  for (const block of body.toString('utf8').split(/\r?\n\r?\n/)) {
    let event = 'message';
    const data: string[] = [];
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith('event:')) event = line.slice(6).trim();
      else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
    }
    if (data.length > 0) events.push({ event, data: data.join('\n') });
  }
  return events;
}

/** Counts of what the properties saw, printed at the end of the run. */
export class FuzzStats {
  readonly requests = new Map<string, number>();
  readonly statuses = new Map<string, Map<string, number>>();
  readonly unavailable: { property: string; message: string }[] = [];
  readonly nonJsonErrors: { property: string; status: number; body: string }[] = [];
  readonly cutAtBound: string[] = [];
  /** Tolerated 502s: orchestrated runs whose every step failed. */
  readonly runFailed: { property: string; message: string }[] = [];
  rpc503 = 0;
  /** A2A requests the HTTP server refused before the endpoint (400/431 in the fleet's shape). */
  httpLevel = 0;
  maxElapsed = new Map<string, number>();

  record(property: string, response: RawResponse): void {
    this.requests.set(property, (this.requests.get(property) ?? 0) + 1);
    const byStatus = this.statuses.get(property) ?? new Map<string, number>();
    const key = response.status === undefined ? response.outcome : String(response.status);
    byStatus.set(key, (byStatus.get(key) ?? 0) + 1);
    this.statuses.set(property, byStatus);
    this.maxElapsed.set(property, Math.max(this.maxElapsed.get(property) ?? 0, response.elapsedMs));
  }

  report(): string {
    const lines = ['fuzz report (status → count per property):'];
    for (const [property, byStatus] of this.statuses) {
      const counts = [...byStatus].sort().map(([status, count]) => `${status}×${count}`);
      lines.push(
        `  ${property}: ${counts.join(' ')} (slowest ${this.maxElapsed.get(property)} ms)`,
      );
    }
    const reasons = new Map<string, number>();
    for (const { message } of this.unavailable)
      reasons.set(message, (reasons.get(message) ?? 0) + 1);
    lines.push(`  503s: ${this.unavailable.length} (JSON-RPC SERVICE_UNAVAILABLE: ${this.rpc503})`);
    lines.push(
      `  A2A requests refused at the HTTP level (400/431, fleet error body): ${this.httpLevel}`,
    );
    for (const [message, count] of reasons) lines.push(`    ${count}× ${message}`);
    if (this.nonJsonErrors.length > 0) {
      lines.push(`  error answers without a JSON body: ${this.nonJsonErrors.length}`);
      const seen = new Set<string>();
      for (const each of this.nonJsonErrors) {
        const key = `${each.property} ${each.status}`;
        if (seen.has(key)) continue;
        seen.add(key);
        lines.push(`    ${key}: ${JSON.stringify(each.body)}`);
      }
    }
    if (this.runFailed.length > 0) {
      lines.push(`  502 "every step failed" (tolerated, reported): ${this.runFailed.length}`);
      for (const each of this.runFailed.slice(0, 3))
        lines.push(`    ${each.property}: ${each.message}`);
    }
    if (this.cutAtBound.length > 0) {
      lines.push(
        `  streams let go while waiting for a person (approval or answer): ${this.cutAtBound.length}`,
      );
    }
    return lines.join('\n');
  }
}

/**
 * Checks one response against the invariants: an answer arrived within the bound (no hang, no
 * reset without a status unless the body was cut off), the status is below 500 or exactly 503, and
 * an error body in JSON has the documented shape (OpenAI envelope, or a JSON-RPC error with an
 * integer code; on A2A, JSON-RPC bodies and SSE events are checked whatever the status).
 */
export function checkResponse(
  response: RawResponse,
  { property, shape, truncated = false, allowRunFailed = false }: CheckOptions,
  stats: FuzzStats,
): Violations {
  stats.record(property, response);
  const violations: Violations = [];
  if (response.outcome === 'timeout') {
    violations.push(
      response.status === undefined
        ? `no answer within ${response.elapsedMs} ms (hang)`
        : `the body did not end within ${response.elapsedMs} ms (hang)`,
    );
  }
  if (response.status === undefined) {
    if (response.outcome === 'reset' && !truncated) {
      violations.push(`connection closed without any answer (${response.error ?? 'closed'})`);
    }
    return violations;
  }
  const status = response.status;
  const contentType = response.headers['content-type']?.[0]?.toLowerCase() ?? '';
  const isJson = contentType.startsWith('application/json');
  let parsed: unknown;
  if (isJson && response.outcome !== 'stopped') {
    try {
      parsed = JSON.parse(response.body.toString('utf8'));
    } catch {
      if (response.outcome === 'complete')
        violations.push('a JSON content-type with a body that is not JSON');
    }
  }
  if (status >= 500) {
    const errorOf = (parsed as { error?: { message?: unknown; code?: unknown } } | undefined)
      ?.error;
    if (
      allowRunFailed &&
      status === 502 &&
      errorOf?.code === 'upstream_error' &&
      typeof errorOf.message === 'string' &&
      EVERY_STEP_FAILED.test(errorOf.message)
    ) {
      stats.runFailed.push({ property, message: errorOf.message.slice(0, 200) });
    } else if (status === 503) {
      const message =
        (parsed as { error?: { message?: string } } | undefined)?.error?.message ?? '(no message)';
      stats.unavailable.push({ property, message: message.slice(0, 160) });
    } else {
      violations.push(`HTTP ${status}`);
    }
  }
  if (status >= 400 && !isJson && shape === 'openai') {
    stats.nonJsonErrors.push({
      property,
      status,
      body: response.body.toString('utf8').slice(0, 200),
    });
  }
  if (shape === 'openai') {
    if (status >= 400 && parsed !== undefined) {
      const problem = openAIEnvelopeProblem(parsed);
      if (problem !== undefined)
        violations.push(`error body is not the OpenAI envelope: ${problem}`);
    }
    if (contentType.startsWith('text/event-stream')) {
      for (const { event, data } of sseEvents(response.body)) {
        if (data === '[DONE]') continue;
        let chunk: unknown;
        try {
          chunk = JSON.parse(data);
        } catch {
          violations.push(`an SSE event that is not JSON: ${data.slice(0, 200)}`);
          continue;
        }
        if (event === 'error' || (isObject(chunk) && 'error' in chunk)) {
          const problem = openAIEnvelopeProblem(chunk);
          if (problem !== undefined) violations.push(`SSE error event shape: ${problem}`);
          const { code, message } =
            (chunk as { error?: { code?: unknown; message?: unknown } }).error ?? {};
          if (
            allowRunFailed &&
            code === 'upstream_error' &&
            typeof message === 'string' &&
            EVERY_STEP_FAILED.test(message)
          ) {
            stats.runFailed.push({ property, message: `mid-stream: ${message.slice(0, 200)}` });
          } else if (code === 'service_unavailable') {
            stats.unavailable.push({ property, message: `mid-stream: ${data.slice(0, 160)}` });
          } else {
            violations.push(`mid-stream error event (a 5xx after 200): ${data.slice(0, 400)}`);
          }
        }
      }
    }
  } else {
    if (parsed !== undefined && (status === 400 || status === 431) && fleetErrorShape(parsed)) {
      // Refused by the HTTP server before the A2A endpoint (malformed or cut-off HTTP, headers
      // too large): the service's own error body, not JSON-RPC.
      stats.httpLevel += 1;
    } else if (parsed !== undefined) {
      const problem = jsonRpcProblem(parsed, stats);
      if (problem !== undefined) violations.push(`JSON-RPC body: ${problem}`);
    } else if (isJson && response.outcome === 'complete') {
      violations.push('a JSON-RPC answer without a JSON body');
    }
    if (contentType.startsWith('text/event-stream')) {
      for (const { data } of sseEvents(response.body)) {
        let envelope: unknown;
        try {
          envelope = JSON.parse(data);
        } catch {
          violations.push(`an SSE event that is not JSON: ${data.slice(0, 200)}`);
          continue;
        }
        const problem = jsonRpcProblem(envelope, stats);
        if (problem !== undefined) violations.push(`SSE JSON-RPC event: ${problem}`);
      }
    }
  }
  return violations;
}
