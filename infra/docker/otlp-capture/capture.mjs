// A tiny OTLP/HTTP trace receiver standing in for Phoenix (compose.otlp-capture.yml), so a
// compose smoke run can check that one request is one trace across containers. No dependencies:
// run it with any Node 20 image (`node capture.mjs`). Like @fleet/testing's startOtlpCapture, it
// accepts `POST /v1/traces` as OTLP/protobuf (what the fleet sends, as to Phoenix) or OTLP/JSON,
// gzip or deflate or plain, and keeps the spans in memory (at most OTLP_CAPTURE_MAX_SPANS).
//
//   GET  /healthz                  ok
//   GET  /spans/summary            { spans, traces, services }
//   GET  /traces/{traceId}         { traceId, spans, services: [...], names: [...] }
//   GET  /sessions/{sessionId}     the spans whose `session.id` is that id, grouped by trace:
//                                  { sessionId, spans, traces: [{ traceId, spans, services, roots }] }
//   DELETE /spans                  forget everything
//
// Listens on 0.0.0.0:${OTLP_CAPTURE_PORT:-4318}.
import { createServer } from 'node:http';
import { gunzipSync, inflateSync } from 'node:zlib';

const port = Number(process.env.OTLP_CAPTURE_PORT || 4318);
const maxSpans = Number(process.env.OTLP_CAPTURE_MAX_SPANS || 200000);
const maxBody = 32 * 1024 * 1024;
/** @type {{ traceId: string, spanId: string, parentSpanId: string, name: string, service: string, sessionId: string }[]} */
let spans = [];

// ---- protobuf: just the wire format and the few fields we read
function readVarint(buffer, offset) {
  let result = 0n;
  let shift = 0n;
  let position = offset;
  for (;;) {
    if (position >= buffer.length) throw new Error('truncated varint');
    const byte = buffer[position++];
    result |= BigInt(byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) return [result, position];
    shift += 7n;
    if (shift > 63n) throw new Error('varint too long');
  }
}

/** Every field of one message: [{ field, varint, bytes }]. */
function fields(buffer) {
  const out = [];
  let offset = 0;
  while (offset < buffer.length) {
    const [key, next] = readVarint(buffer, offset);
    offset = next;
    const field = Number(key >> 3n);
    const wire = Number(key & 7n);
    if (wire === 0) {
      const [value, after] = readVarint(buffer, offset);
      out.push({ field, varint: value, bytes: Buffer.alloc(0) });
      offset = after;
    } else if (wire === 2) {
      const [length, after] = readVarint(buffer, offset);
      const end = after + Number(length);
      if (end > buffer.length) throw new Error('truncated field');
      out.push({ field, varint: 0n, bytes: buffer.subarray(after, end) });
      offset = end;
    } else if (wire === 1) {
      out.push({ field, varint: 0n, bytes: buffer.subarray(offset, offset + 8) });
      offset += 8;
    } else if (wire === 5) {
      out.push({ field, varint: 0n, bytes: buffer.subarray(offset, offset + 4) });
      offset += 4;
    } else {
      throw new Error(`unsupported wire type ${wire}`);
    }
  }
  return out;
}

/** KeyValue { 1 key, 2 AnyValue { 1 string_value, ... } } → [key, string or undefined] */
function keyValue(bytes) {
  let key = '';
  let value;
  for (const f of fields(bytes)) {
    if (f.field === 1) key = f.bytes.toString('utf8');
    if (f.field === 2) {
      for (const v of fields(f.bytes)) if (v.field === 1) value = v.bytes.toString('utf8');
    }
  }
  return [key, value];
}

function decodeProtobuf(buffer) {
  const out = [];
  for (const resourceSpans of fields(buffer).filter((f) => f.field === 1)) {
    let service = '';
    const parts = fields(resourceSpans.bytes);
    for (const resource of parts.filter((f) => f.field === 1)) {
      for (const attribute of fields(resource.bytes).filter((f) => f.field === 1)) {
        const [key, value] = keyValue(attribute.bytes);
        if (key === 'service.name' && value !== undefined) service = value;
      }
    }
    for (const scopeSpans of parts.filter((f) => f.field === 2)) {
      for (const span of fields(scopeSpans.bytes).filter((f) => f.field === 2)) {
        const record = {
          traceId: '',
          spanId: '',
          parentSpanId: '',
          name: '',
          service,
          sessionId: '',
        };
        for (const f of fields(span.bytes)) {
          if (f.field === 1) record.traceId = f.bytes.toString('hex');
          else if (f.field === 2) record.spanId = f.bytes.toString('hex');
          else if (f.field === 4) record.parentSpanId = f.bytes.toString('hex');
          else if (f.field === 5) record.name = f.bytes.toString('utf8');
          else if (f.field === 9) {
            const [key, value] = keyValue(f.bytes);
            if (key === 'session.id' && value !== undefined) record.sessionId = value;
          }
        }
        out.push(record);
      }
    }
  }
  return out;
}

function decodeJson(text) {
  const out = [];
  const attributeValue = (attributes, name) => {
    const found = (attributes || []).find((a) => a.key === name);
    return found?.value?.stringValue ?? '';
  };
  for (const resourceSpans of JSON.parse(text).resourceSpans || []) {
    const service = attributeValue(resourceSpans.resource?.attributes, 'service.name');
    for (const scopeSpans of resourceSpans.scopeSpans || []) {
      for (const span of scopeSpans.spans || []) {
        out.push({
          traceId: String(span.traceId || '').toLowerCase(),
          spanId: String(span.spanId || '').toLowerCase(),
          parentSpanId: String(span.parentSpanId || '').toLowerCase(),
          name: String(span.name || ''),
          service,
          sessionId: attributeValue(span.attributes, 'session.id'),
        });
      }
    }
  }
  return out;
}

// ---- HTTP
function send(response, status, body) {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  response.end(text);
}

function traceSummary(traceId, traceSpans) {
  const ids = new Set(traceSpans.map((s) => s.spanId));
  return {
    traceId,
    spans: traceSpans.length,
    services: [...new Set(traceSpans.map((s) => s.service))].sort(),
    // Spans whose parent is not in the trace: one (the gateway's server span) when the trace is whole.
    roots: traceSpans
      .filter((s) => !s.parentSpanId || !ids.has(s.parentSpanId))
      .map((s) => `${s.service}: ${s.name}`),
  };
}

async function readBody(request) {
  const chunks = [];
  let size = 0;
  for await (const chunk of request) {
    size += chunk.length;
    if (size > maxBody) throw new Error('body too large');
    chunks.push(chunk);
  }
  const body = Buffer.concat(chunks);
  const encoding = request.headers['content-encoding'];
  if (encoding === 'gzip') return gunzipSync(body);
  if (encoding === 'deflate') return inflateSync(body);
  return body;
}

const server = createServer(async (request, response) => {
  const url = new URL(request.url || '/', 'http://capture');
  try {
    if (request.method === 'POST' && url.pathname === '/v1/traces') {
      const body = await readBody(request);
      const type = String(request.headers['content-type'] || '');
      const received = type.includes('json')
        ? decodeJson(body.toString('utf8'))
        : decodeProtobuf(body);
      spans.push(...received);
      if (spans.length > maxSpans) spans = spans.slice(spans.length - maxSpans);
      if (type.includes('json')) return send(response, 200, {});
      response.writeHead(200, { 'content-type': 'application/x-protobuf', 'content-length': 0 });
      return response.end();
    }
    if (request.method === 'GET' && url.pathname === '/healthz')
      return send(response, 200, { ok: true });
    if (request.method === 'DELETE' && url.pathname === '/spans') {
      spans = [];
      return send(response, 200, { ok: true });
    }
    if (request.method === 'GET' && url.pathname === '/spans/summary') {
      return send(response, 200, {
        spans: spans.length,
        traces: new Set(spans.map((s) => s.traceId)).size,
        services: [...new Set(spans.map((s) => s.service))].sort(),
      });
    }
    const trace = /^\/traces\/([0-9a-f]{32})$/.exec(url.pathname);
    if (request.method === 'GET' && trace) {
      const traceSpans = spans.filter((s) => s.traceId === trace[1]);
      return send(response, 200, {
        ...traceSummary(trace[1], traceSpans),
        names: traceSpans.map((s) => `${s.service}: ${s.name}`),
      });
    }
    const session = /^\/sessions\/([^/]+)$/.exec(url.pathname);
    if (request.method === 'GET' && session) {
      const sessionId = decodeURIComponent(session[1]);
      const tagged = spans.filter((s) => s.sessionId === sessionId);
      const traceIds = [...new Set(tagged.map((s) => s.traceId))];
      // Whole traces: a trace's spans without the attribute (none expected) still count.
      const traces = traceIds.map((id) =>
        traceSummary(
          id,
          spans.filter((s) => s.traceId === id),
        ),
      );
      return send(response, 200, { sessionId, spans: tagged.length, traces });
    }
    send(response, 404, { error: 'not found' });
  } catch (error) {
    send(response, 400, { error: String(error?.message || error) });
  }
});

server.listen(port, '0.0.0.0', () => console.log(`otlp capture listening on 0.0.0.0:${port}`));
for (const signal of ['SIGTERM', 'SIGINT'])
  process.on(signal, () => server.close(() => process.exit(0)));
