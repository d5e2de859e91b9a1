/** A span event as captured. */
export interface CapturedSpanEvent {
  name: string;
  timeUnixNano: bigint;
  attributes: Record<string, unknown>;
}

/** A span link as captured. */
export interface CapturedSpanLink {
  traceId: string;
  spanId: string;
  attributes: Record<string, unknown>;
}

/**
 * One span an exporter sent, decoded the same way from OTLP/JSON and OTLP/protobuf. Ids are
 * lowercase hex; attribute values are strings, numbers (integers beyond 2^53 stay `bigint`),
 * booleans, arrays, objects (kvlist) or Buffers (bytes).
 */
export interface CapturedSpan {
  traceId: string;
  spanId: string;
  /** Absent on a root span. */
  parentSpanId?: string;
  traceState?: string;
  name: string;
  /** OTLP's SpanKind: 0 unspecified, 1 internal, 2 server, 3 client, 4 producer, 5 consumer (the OTel JS API's `SpanKind` plus one). */
  kind: number;
  startTimeUnixNano: bigint;
  endTimeUnixNano: bigint;
  attributes: Record<string, unknown>;
  events: CapturedSpanEvent[];
  links: CapturedSpanLink[];
  /** OTLP's status: code 0 unset, 1 ok, 2 error. */
  status: { code: number; message?: string };
  /** The resource attributes of the exporting process. */
  resource: Record<string, unknown>;
  /** `resource['service.name']`, when it is a string. */
  serviceName?: string;
  /** The instrumentation scope's name. */
  scope?: string;
  scopeVersion?: string;
}

/** Turns a decoded int64 into a number when it is safe to. */
export function normaliseInt(value: bigint): number | bigint {
  return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)
    ? Number(value)
    : value;
}

/** Fills in the fields derived from the resource and scope. */
export function withContext(
  span: Omit<CapturedSpan, 'resource' | 'serviceName' | 'scope' | 'scopeVersion'>,
  context: { resource: Record<string, unknown>; scope?: string; scopeVersion?: string },
): CapturedSpan {
  const serviceName = context.resource['service.name'];
  return {
    ...span,
    resource: context.resource,
    ...(typeof serviceName === 'string' ? { serviceName } : {}),
    ...(context.scope ? { scope: context.scope } : {}),
    ...(context.scopeVersion ? { scopeVersion: context.scopeVersion } : {}),
  };
}
