import { z } from 'zod';
import { parseJsonText } from '../internal/parse-json-text';
import { type CapturedSpan, normaliseInt, withContext } from './captured-span';

const int64Schema = z.union([z.string(), z.number()]);

// OTLP/JSON (proto3 JSON mapping): int64 values may be strings or numbers, enums numbers or names.
const anyValueSchema = z.looseObject({
  stringValue: z.string().nullish(),
  boolValue: z.boolean().nullish(),
  intValue: int64Schema.nullish(),
  doubleValue: z.union([z.number(), z.string()]).nullish(),
  bytesValue: z.string().nullish(),
  get arrayValue() {
    return z.object({ values: z.array(anyValueSchema).nullish() }).nullish();
  },
  get kvlistValue() {
    return z.object({ values: z.array(keyValueSchema).nullish() }).nullish();
  },
});

const keyValueSchema = z.looseObject({
  key: z.string(),
  get value() {
    return anyValueSchema.nullish();
  },
});

const attributesSchema = z.array(keyValueSchema).nullish();

const spanSchema = z.looseObject({
  traceId: z.string(),
  spanId: z.string(),
  parentSpanId: z.string().nullish(),
  traceState: z.string().nullish(),
  name: z.string(),
  kind: z.union([z.number(), z.string()]).nullish(),
  startTimeUnixNano: int64Schema.nullish(),
  endTimeUnixNano: int64Schema.nullish(),
  attributes: attributesSchema,
  events: z
    .array(
      z.looseObject({
        name: z.string(),
        timeUnixNano: int64Schema.nullish(),
        attributes: attributesSchema,
      }),
    )
    .nullish(),
  links: z
    .array(z.looseObject({ traceId: z.string(), spanId: z.string(), attributes: attributesSchema }))
    .nullish(),
  status: z
    .looseObject({
      code: z.union([z.number(), z.string()]).nullish(),
      message: z.string().nullish(),
    })
    .nullish(),
});

/** OTLP/JSON `ExportTraceServiceRequest`, tolerant of fields this capture does not read. */
const exportTraceRequestSchema = z.looseObject({
  resourceSpans: z
    .array(
      z.looseObject({
        resource: z.looseObject({ attributes: attributesSchema }).nullish(),
        scopeSpans: z
          .array(
            z.looseObject({
              scope: z
                .looseObject({ name: z.string().nullish(), version: z.string().nullish() })
                .nullish(),
              spans: z.array(spanSchema).nullish(),
            }),
          )
          .nullish(),
      }),
    )
    .nullish(),
});

type JsonAnyValue = z.infer<typeof anyValueSchema>;
type JsonKeyValue = z.infer<typeof keyValueSchema>;

const SPAN_KINDS: Record<string, number> = {
  SPAN_KIND_UNSPECIFIED: 0,
  SPAN_KIND_INTERNAL: 1,
  SPAN_KIND_SERVER: 2,
  SPAN_KIND_CLIENT: 3,
  SPAN_KIND_PRODUCER: 4,
  SPAN_KIND_CONSUMER: 5,
};
const STATUS_CODES: Record<string, number> = {
  STATUS_CODE_UNSET: 0,
  STATUS_CODE_OK: 1,
  STATUS_CODE_ERROR: 2,
};

function enumValue(
  value: number | string | null | undefined,
  names: Record<string, number>,
): number {
  if (typeof value === 'number') return value;
  if (value == null) return 0;
  return names[value] ?? (Number(value) || 0);
}

/** OTLP/JSON ids are hex; proto3's generic mapping would make them base64, so accept both. */
function hexId(value: string): string {
  if (/^[0-9a-fA-F]*$/.test(value) && value.length % 2 === 0) return value.toLowerCase();
  return Buffer.from(value, 'base64').toString('hex');
}

function toBigInt(value: string | number | null | undefined): bigint {
  if (value == null || value === '') return 0n;
  return BigInt(value);
}

function convertValue(value: JsonAnyValue | null | undefined): unknown {
  if (!value) return undefined;
  if (value.stringValue != null) return value.stringValue;
  if (value.boolValue != null) return value.boolValue;
  if (value.intValue != null) return normaliseInt(BigInt(value.intValue));
  if (value.doubleValue != null) return Number(value.doubleValue);
  if (value.arrayValue != null) return (value.arrayValue.values ?? []).map(convertValue);
  if (value.kvlistValue != null) return convertAttributes(value.kvlistValue.values);
  if (value.bytesValue != null) return Buffer.from(value.bytesValue, 'base64');
  return undefined;
}

function convertAttributes(keyValues: JsonKeyValue[] | null | undefined): Record<string, unknown> {
  const attributes: Record<string, unknown> = {};
  for (const { key, value } of keyValues ?? []) attributes[key] = convertValue(value);
  return attributes;
}

/**
 * Decodes an OTLP/JSON `ExportTraceServiceRequest` (as `exporter-trace-otlp-http` sends it) into
 * spans shaped exactly like {@link decodeOtlpProtobuf}'s. Throws on a body that is not one.
 */
export function decodeOtlpJson(text: string): CapturedSpan[] {
  const parsed = parseJsonText(text, exportTraceRequestSchema);
  if (!parsed.success) throw new Error(parsed.message);
  const spans: CapturedSpan[] = [];
  for (const resourceSpans of parsed.value.resourceSpans ?? []) {
    const resource = convertAttributes(resourceSpans.resource?.attributes);
    for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
      const scope = scopeSpans.scope?.name ?? undefined;
      const scopeVersion = scopeSpans.scope?.version ?? undefined;
      for (const span of scopeSpans.spans ?? []) {
        const status: { code: number; message?: string } = {
          code: enumValue(span.status?.code, STATUS_CODES),
        };
        if (span.status?.message) status.message = span.status.message;
        spans.push(
          withContext(
            {
              traceId: hexId(span.traceId),
              spanId: hexId(span.spanId),
              ...(span.parentSpanId ? { parentSpanId: hexId(span.parentSpanId) } : {}),
              ...(span.traceState ? { traceState: span.traceState } : {}),
              name: span.name,
              kind: enumValue(span.kind, SPAN_KINDS),
              startTimeUnixNano: toBigInt(span.startTimeUnixNano),
              endTimeUnixNano: toBigInt(span.endTimeUnixNano),
              attributes: convertAttributes(span.attributes),
              events: (span.events ?? []).map((event) => ({
                name: event.name,
                timeUnixNano: toBigInt(event.timeUnixNano),
                attributes: convertAttributes(event.attributes),
              })),
              links: (span.links ?? []).map((link) => ({
                traceId: hexId(link.traceId),
                spanId: hexId(link.spanId),
                attributes: convertAttributes(link.attributes),
              })),
              status,
            },
            {
              resource,
              ...(scope ? { scope } : {}),
              ...(scopeVersion ? { scopeVersion } : {}),
            },
          ),
        );
      }
    }
  }
  return spans;
}
