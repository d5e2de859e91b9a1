import {
  type CapturedSpan,
  type CapturedSpanEvent,
  type CapturedSpanLink,
  normaliseInt,
  withContext,
} from './captured-span';

/** One protobuf field: its number and its raw value (varint as bigint, everything else as bytes). */
interface ProtoField {
  field: number;
  varint: bigint;
  bytes: Buffer;
}

const EMPTY = Buffer.alloc(0);

function readVarint(buffer: Buffer, offset: number): [bigint, number] {
  let result = 0n;
  let shift = 0n;
  let position = offset;
  for (;;) {
    const byte = buffer[position];
    if (byte === undefined) throw new Error('Truncated protobuf varint');
    position++;
    result |= BigInt(byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) return [result, position];
    shift += 7n;
    if (shift > 63n) throw new Error('Protobuf varint longer than 10 bytes');
  }
}

/** Walks the fields of one protobuf message (wire types 0, 1, 2 and 5; groups are rejected). */
function* readFields(buffer: Buffer): Generator<ProtoField> {
  let offset = 0;
  while (offset < buffer.length) {
    const [tag, afterTag] = readVarint(buffer, offset);
    const field = Number(tag >> 3n);
    const wireType = Number(tag & 7n);
    offset = afterTag;
    switch (wireType) {
      case 0: {
        const [value, next] = readVarint(buffer, offset);
        offset = next;
        yield { field, varint: value, bytes: EMPTY };
        break;
      }
      case 1:
      case 5: {
        const size = wireType === 1 ? 8 : 4;
        if (offset + size > buffer.length) throw new Error('Truncated protobuf fixed field');
        yield { field, varint: 0n, bytes: buffer.subarray(offset, offset + size) };
        offset += size;
        break;
      }
      case 2: {
        const [length, next] = readVarint(buffer, offset);
        const end = next + Number(length);
        if (end > buffer.length) throw new Error('Truncated protobuf length-delimited field');
        yield { field, varint: 0n, bytes: buffer.subarray(next, end) };
        offset = end;
        break;
      }
      default:
        throw new Error(`Unsupported protobuf wire type ${wireType} (field ${field})`);
    }
  }
}

function decodeAnyValue(buffer: Buffer): unknown {
  let value: unknown;
  for (const { field, varint, bytes } of readFields(buffer)) {
    switch (field) {
      case 1:
        value = bytes.toString('utf8');
        break;
      case 2:
        value = varint !== 0n;
        break;
      case 3:
        value = normaliseInt(BigInt.asIntN(64, varint));
        break;
      case 4:
        value = bytes.readDoubleLE(0);
        break;
      case 5:
        value = [...readFields(bytes)]
          .filter((item) => item.field === 1)
          .map((item) => decodeAnyValue(item.bytes));
        break;
      case 6:
        value = decodeAttributes(
          [...readFields(bytes)].filter((item) => item.field === 1).map((item) => item.bytes),
        );
        break;
      case 7:
        value = Buffer.from(bytes);
        break;
      default:
        break;
    }
  }
  return value;
}

function decodeAttributes(keyValues: Buffer[]): Record<string, unknown> {
  const attributes: Record<string, unknown> = {};
  for (const keyValue of keyValues) {
    let key = '';
    let value: unknown;
    for (const { field, bytes } of readFields(keyValue)) {
      if (field === 1) key = bytes.toString('utf8');
      else if (field === 2) value = decodeAnyValue(bytes);
    }
    attributes[key] = value;
  }
  return attributes;
}

function decodeEvent(buffer: Buffer): CapturedSpanEvent {
  const event: CapturedSpanEvent = { name: '', timeUnixNano: 0n, attributes: {} };
  const attributes: Buffer[] = [];
  for (const { field, bytes } of readFields(buffer)) {
    if (field === 1) event.timeUnixNano = bytes.readBigUInt64LE(0);
    else if (field === 2) event.name = bytes.toString('utf8');
    else if (field === 3) attributes.push(bytes);
  }
  event.attributes = decodeAttributes(attributes);
  return event;
}

function decodeLink(buffer: Buffer): CapturedSpanLink {
  const link: CapturedSpanLink = { traceId: '', spanId: '', attributes: {} };
  const attributes: Buffer[] = [];
  for (const { field, bytes } of readFields(buffer)) {
    if (field === 1) link.traceId = bytes.toString('hex');
    else if (field === 2) link.spanId = bytes.toString('hex');
    else if (field === 4) attributes.push(bytes);
  }
  link.attributes = decodeAttributes(attributes);
  return link;
}

function decodeSpan(
  buffer: Buffer,
): Omit<CapturedSpan, 'resource' | 'serviceName' | 'scope' | 'scopeVersion'> {
  const span: Omit<CapturedSpan, 'resource' | 'serviceName' | 'scope' | 'scopeVersion'> = {
    traceId: '',
    spanId: '',
    name: '',
    kind: 0,
    startTimeUnixNano: 0n,
    endTimeUnixNano: 0n,
    attributes: {},
    events: [],
    links: [],
    status: { code: 0 },
  };
  const attributes: Buffer[] = [];
  for (const { field, varint, bytes } of readFields(buffer)) {
    switch (field) {
      case 1:
        span.traceId = bytes.toString('hex');
        break;
      case 2:
        span.spanId = bytes.toString('hex');
        break;
      case 3:
        if (bytes.length > 0) span.traceState = bytes.toString('utf8');
        break;
      case 4:
        if (bytes.length > 0) span.parentSpanId = bytes.toString('hex');
        break;
      case 5:
        span.name = bytes.toString('utf8');
        break;
      case 6:
        span.kind = Number(varint);
        break;
      case 7:
        span.startTimeUnixNano = bytes.readBigUInt64LE(0);
        break;
      case 8:
        span.endTimeUnixNano = bytes.readBigUInt64LE(0);
        break;
      case 9:
        attributes.push(bytes);
        break;
      case 11:
        span.events.push(decodeEvent(bytes));
        break;
      case 13:
        span.links.push(decodeLink(bytes));
        break;
      case 15: {
        const status: { code: number; message?: string } = { code: 0 };
        for (const item of readFields(bytes)) {
          if (item.field === 2 && item.bytes.length > 0)
            status.message = item.bytes.toString('utf8');
          else if (item.field === 3) status.code = Number(item.varint);
        }
        span.status = status;
        break;
      }
      default:
        break;
    }
  }
  span.attributes = decodeAttributes(attributes);
  return span;
}

/**
 * Decodes an OTLP `ExportTraceServiceRequest` (protobuf, as `exporter-trace-otlp-proto` sends it)
 * into spans, with a dependency-free varint walker. Throws on a malformed body.
 */
export function decodeOtlpProtobuf(body: Buffer): CapturedSpan[] {
  const spans: CapturedSpan[] = [];
  for (const resourceSpans of readFields(body)) {
    if (resourceSpans.field !== 1) continue;
    const resourceKeyValues: Buffer[] = [];
    const scopeSpansList: Buffer[] = [];
    for (const { field, bytes } of readFields(resourceSpans.bytes)) {
      if (field === 1) {
        for (const item of readFields(bytes))
          if (item.field === 1) resourceKeyValues.push(item.bytes);
      } else if (field === 2) scopeSpansList.push(bytes);
    }
    const resource = decodeAttributes(resourceKeyValues);
    for (const scopeSpans of scopeSpansList) {
      let scope: string | undefined;
      let scopeVersion: string | undefined;
      const spanBuffers: Buffer[] = [];
      for (const { field, bytes } of readFields(scopeSpans)) {
        if (field === 1) {
          for (const item of readFields(bytes)) {
            if (item.field === 1) scope = item.bytes.toString('utf8');
            else if (item.field === 2) scopeVersion = item.bytes.toString('utf8');
          }
        } else if (field === 2) spanBuffers.push(bytes);
      }
      for (const spanBuffer of spanBuffers) {
        spans.push(
          withContext(decodeSpan(spanBuffer), {
            resource,
            ...(scope === undefined ? {} : { scope }),
            ...(scopeVersion === undefined ? {} : { scopeVersion }),
          }),
        );
      }
    }
  }
  return spans;
}
