import fc from 'fast-check';
import { gzipSync } from 'node:zlib';
import {
  AGENT_PHRASES,
  DEEP,
  deepJsonText,
  hugeText,
  jsonValue,
  stringifyWithDeep,
  unicodeText,
} from './common';
import { printable, type RequestCase } from './request-case';

/** Stops reading an orchestration stream where the run waits for a person (or ends). */
export const WAITS_FOR_A_PERSON = /approval-required|input-required|run-paused|\[DONE\]/;

// ---- headers ---------------------------------------------------------------------------------

/** `Authorization` values other than the right `Bearer <key>` (several: duplicate headers). */
export const badAuthorization = (key: string): fc.Arbitrary<string[]> =>
  fc.oneof(
    {
      weight: 6,
      arbitrary: fc
        .constantFrom<string[]>(
          [],
          [''],
          ['Bearer'],
          ['Bearer '],
          [`bearer ${key}`],
          [`Bearer  ${key}  `],
          [`Basic ${Buffer.from(`${key}:`).toString('base64')}`],
          [`Bearer ${key}x`],
          ['Bearer sk-wrong-0123456789abcdef'],
          [`Bearer ${key}`, `Bearer ${key}`],
          [`Bearer ${key}`, 'Bearer sk-wrong'],
          [`Bearer ${key}\u00e9`],
          [`Token ${key}`],
        )
        .map((values) => [...values]),
    },
    {
      weight: 2,
      // Oversized, up to 64 KiB (Node's own limit is 16 KiB).
      arbitrary: fc
        .integer({ min: 1024, max: 64 * 1024 })
        .map((size) => [`Bearer ${key}${'a'.repeat(size)}`]),
    },
    {
      weight: 1,
      arbitrary: unicodeText(100).map((value) => [`Bearer ${asHeaderValue(value)}`]),
    },
  );

/** `Authorization`: mostly right (so the body gets read), sometimes one of {@link badAuthorization}. */
export const authorization = (key: string): fc.Arbitrary<string[]> =>
  fc.oneof(
    { weight: 5, arbitrary: fc.constant<string[]>([`Bearer ${key}`]) },
    { weight: 1, arbitrary: badAuthorization(key) },
  );

const badContentType = fc.constantFrom<string[]>(
  [],
  [''],
  ['application/json; charset=utf-8'],
  ['application/json; charset=utf-16'],
  ['APPLICATION/JSON'],
  ['text/plain'],
  ['application/x-www-form-urlencoded'],
  ['multipart/form-data; boundary=x'],
  ['application/json', 'application/json'],
  ['application/json', 'text/html'],
  ['application/jsonp'],
  [';;;'],
);

const badContentEncoding = fc.constantFrom<string[]>(
  ['gzip'],
  ['br'],
  ['deflate'],
  ['identity'],
  ['x-garbage'],
  ['gzip, gzip'],
  [''],
  ['identity', 'gzip'],
);

/** `X-Routing-Mode`: every mode, spelled as documented or not. */
const routingMode = fc.oneof(
  { weight: 3, arbitrary: fc.constant<string[]>([]) },
  {
    weight: 6,
    arbitrary: fc
      .constantFrom('orchestration', 'passthrough', 'reasoning', 'auto')
      .map((value) => [value]),
  },
);

const badRoutingMode = fc.oneof(
  fc.constantFrom<string[]>(
    [' Orchestration '],
    ['AUTO'],
    [''],
    ['orchestration', 'passthrough'],
    ['none'],
  ),
  unicodeText(80).map((value) => [asHeaderValue(value)]),
  fc.integer({ min: 1024, max: 32 * 1024 }).map((size) => ['o'.repeat(size)]),
);

/** Extra headers: a plan approval, a session to resume, a fleet user, garbage, one oversized. */
const extraHeader = fc.oneof(
  fc.constantFrom<[string, string]>(
    ['X-Plan-Approval', 'required'],
    ['X-Plan-Approval', 'maybe'],
    ['X-Session-ID', 'sess-does-not-exist'],
    ['X-Session-ID', ''],
    ['X-Fleet-User', 'mallory'],
    ['Accept', 'text/event-stream'],
    ['Expect', '100-continue'],
    ['Transfer-Encoding', 'identity'],
    ['X-Request-Id', '../../etc/passwd'],
    ['Content-Length', '0'],
  ),
  fc.tuple(
    fc.stringMatching(/^X-[A-Za-z0-9-]{1,20}$/),
    unicodeText(60).map((value) => asHeaderValue(value)),
  ),
  fc
    .integer({ min: 1024, max: 64 * 1024 })
    .map((size): [string, string] => ['X-Fuzz-Padding', 'p'.repeat(size)]),
);

/**
 * The identity and routing headers the gateway reads, each sent 2–3 times with values that would
 * mean something joined (`alice, bob` is a third user) or when only the first or last is read.
 */
export const repeatedIdentityHeader = fc
  .record({
    name: fc.constantFrom(
      'Authorization',
      'X-Fleet-User',
      'X-Routing-Mode',
      'X-Session-ID',
      'X-Plan-Approval',
    ),
    count: fc.integer({ min: 2, max: 3 }),
  })
  .map(({ name, count }): [string, string][] => {
    const values: Record<string, string[]> = {
      Authorization: ['Bearer sk-wrong-0123456789abcdef', 'Bearer sk-other-0123456789abcdef'],
      'X-Fleet-User': ['alice', 'bob', 'mallory'],
      'X-Routing-Mode': ['orchestration', 'passthrough', 'reasoning'],
      'X-Session-ID': ['sess-does-not-exist', 'sess-other', 'sess-third'],
      'X-Plan-Approval': ['none', 'required', 'none'],
    };
    return (values[name] ?? []).slice(0, count).map((value) => [name, value]);
  });

/** A value that can travel in a header line: UTF-8 bytes as latin1, no CR, LF or NUL. */
export function asHeaderValue(value: string): string {
  return Buffer.from(value, 'utf8')
    .toString('latin1')
    .replace(/[\r\n\0]/g, ' ');
}

// ---- bodies ----------------------------------------------------------------------------------

const FIELDS = [
  'model',
  'messages',
  'stream',
  'stream_options',
  'tools',
  'response_format',
  'user',
  'temperature',
  'n',
  'unknown_field',
] as const;

/** What a field may wrongly hold: another type, null, nesting, a deep placeholder. */
const badValue = fc.oneof(
  fc.constantFrom(
    null,
    '',
    0,
    -1,
    1.5,
    true,
    'true',
    [],
    {},
    [null],
    [[]],
    DEEP,
    'fleet-orchestration',
  ),
  jsonValue(3),
  unicodeText(60),
);

/** A content part of an array `content`. */
const contentPart = fc.oneof(
  fc.record({ type: fc.constant('text'), text: unicodeText() }),
  fc.record({ type: fc.constant('image_url'), image_url: fc.record({ url: fc.webUrl() }) }),
  fc.record(
    { type: fc.constantFrom('text', 'input_audio', 7, null), text: jsonValue(2) },
    { requiredKeys: [] },
  ),
  jsonValue(2),
);

const badContent = fc.oneof(
  fc.constantFrom(null, 0, 42, true, {}, [], '', '   ', DEEP),
  fc.array(contentPart, { minLength: 1, maxLength: 4 }),
  jsonValue(3),
);

const badRole = fc.constantFrom('USER', '', 'admin', null, 7, ['user'], 'function', 'tool');

/** A valid conversation: some history, then the user's request last. */
const validMessages = fc
  .record({
    history: fc.array(
      fc.record({
        role: fc.constantFrom('system', 'developer', 'user', 'assistant'),
        content: unicodeText(),
      }),
      { maxLength: 2 },
    ),
    request: fc.oneof(
      { weight: 2, arbitrary: fc.constantFrom(...AGENT_PHRASES.filter((phrase) => phrase !== '')) },
      { weight: 3, arbitrary: unicodeText().filter((text) => text.trim() !== '') },
    ),
  })
  .map(({ history, request }) => [...history, { role: 'user', content: request }]);

/** One thing done wrong to an otherwise valid request (shrinking drops them one by one). */
const mutation = (key: string, maxHugeBytes: number) =>
  fc.oneof(
    fc.record({ kind: fc.constant('auth' as const), values: badAuthorization(key) }),
    fc.record({ kind: fc.constant('content-type' as const), values: badContentType }),
    fc.record({ kind: fc.constant('content-encoding' as const), values: badContentEncoding }),
    fc.record({ kind: fc.constant('routing-mode' as const), values: badRoutingMode }),
    fc.record({ kind: fc.constant('header' as const), header: extraHeader }),
    fc.record({ kind: fc.constant('repeated' as const), headers: repeatedIdentityHeader }),
    fc.record({
      kind: fc.constant('framing' as const),
      framing: fc.constantFrom('chunked', 'gzip', 'cut', 'short'),
      at: fc.nat(),
    }),
    fc.record({
      kind: fc.constant('path' as const),
      path: fc.constantFrom(
        '/v1/chat/completions?stream=true',
        '/v1/chat/completions/',
        '/v1//chat/completions',
        '/V1/chat/completions',
        '/v1/chat/completions?x=%zz',
        '/v1/chat/completions#frag',
      ),
    }),
    fc.record({
      kind: fc.constant('field' as const),
      field: fc.constantFrom(...FIELDS),
      value: badValue,
    }),
    fc.record({ kind: fc.constant('drop' as const), field: fc.constantFrom(...FIELDS) }),
    fc.record({
      kind: fc.constant('message' as const),
      index: fc.nat(3),
      role: fc.option(badRole, { nil: undefined }),
      content: fc.option(badContent, { nil: undefined }),
      extra: fc.option(jsonValue(2), { nil: undefined }),
    }),
    fc.record({
      kind: fc.constant('deep' as const),
      where: fc.constantFrom('content', 'field', 'model', 'body'),
      deep: deepJsonText(50, 20_000),
    }),
    fc.record({ kind: fc.constant('huge' as const), text: hugeText(maxHugeBytes) }),
    fc.record({ kind: fc.constant('raw' as const), bytes: nonObjectBody }),
  );

/** Bytes that are not a JSON object: another JSON type, broken JSON, bad UTF-8, nothing. */
const nonObjectBody = fc.oneof(
  fc
    .constantFrom(
      '',
      'null',
      '[]',
      '"hello"',
      '42',
      '{',
      '{"model":',
      '{"model":"fleet-orchestration","messages":[{"role":"user","content":"hi"}]',
      '\uFEFF{"model":"fleet-orchestration","messages":[{"role":"user","content":"hi"}]}',
      '{"model":"x","model":"fleet-orchestration","messages":[{"role":"user","content":"hi"}]}',
      'NaN',
      '{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},"model":"fleet-orchestration","messages":[{"role":"user","content":"hi","__proto__":{"role":"x"}}]}',
      '{"a":1e999999}',
    )
    .map((text) => Buffer.from(text, 'utf8')),
  fc.uint8Array({ maxLength: 512 }).map((bytes) => Buffer.from(bytes)),
  fc.constant(Buffer.from([0x7b, 0x22, 0xc3, 0x28, 0x22, 0x3a, 0x31, 0x7d])),
);

type Mutation = ReturnType<typeof mutation> extends fc.Arbitrary<infer T> ? T : never;

/**
 * `POST /v1/chat/completions`: a valid request (any route, streamed or not) with none, one or a
 * few {@link mutation}s: wrong types, nulls, huge or deep values, unknown fields, bad headers
 * (Authorization, Content-Type, Content-Encoding, X-Routing-Mode, oversized ones), odd framing
 * (chunked, gzip, cut off at a random byte).
 */
export const chatCompletionCase = (
  key: string,
  maxHugeBytes = 256 * 1024,
): fc.Arbitrary<RequestCase> =>
  fc
    .record({
      model: fc.constantFrom('fleet-orchestration', 'fleet-auto', 'fleet-reasoning', 'gpt-4o-mini'),
      messages: validMessages,
      stream: fc.boolean(),
      mode: routingMode,
      mutations: fc.oneof(
        { weight: 3, arbitrary: fc.constant<Mutation[]>([]) },
        {
          weight: 5,
          arbitrary: fc.array(mutation(key, maxHugeBytes), { minLength: 1, maxLength: 3 }),
        },
      ),
    })
    .map(({ model, messages, stream, mode, mutations }) => {
      const request: Record<string, unknown> = {
        model,
        messages: structuredClone(messages),
        stream,
      };
      let auth = [`Bearer ${key}`];
      let contentType = ['application/json'];
      let encoding: string[] = [];
      let routing = mode;
      const extra: [string, string][] = [];
      let framing: 'length' | 'chunked' | 'gzip' | 'cut' | 'short' = 'length';
      let at = 0;
      let path = '/v1/chat/completions';
      let deep: string | undefined;
      let raw: Buffer | undefined;
      for (const each of mutations) {
        switch (each.kind) {
          case 'auth':
            auth = each.values;
            break;
          case 'content-type':
            contentType = each.values;
            break;
          case 'content-encoding':
            encoding = each.values;
            break;
          case 'routing-mode':
            routing = each.values;
            break;
          case 'header':
            extra.push(each.header);
            break;
          case 'repeated':
            // A right key first, so a repeated Authorization is refused as such, not as wrong.
            if (each.headers[0]?.[0] === 'Authorization') {
              auth = [`Bearer ${key}`, ...each.headers.map(([, value]) => value)];
            } else extra.push(...each.headers);
            break;
          case 'framing':
            framing = each.framing;
            at = each.at;
            break;
          case 'path':
            path = each.path;
            break;
          case 'field':
            request[each.field] = each.value;
            break;
          case 'drop':
            delete request[each.field];
            break;
          case 'message': {
            const list = request['messages'];
            if (!Array.isArray(list) || list.length === 0) break;
            const target = list[each.index % list.length] as Record<string, unknown>;
            if (typeof target !== 'object' || target === null) break;
            if (each.role !== undefined) target['role'] = each.role;
            if (each.content !== undefined) target['content'] = each.content;
            if (each.extra !== undefined) target['extra'] = each.extra;
            break;
          }
          case 'deep':
            deep = each.deep;
            if (each.where === 'body') raw = Buffer.from(each.deep);
            else if (each.where === 'model') request['model'] = DEEP;
            else if (each.where === 'field') request['metadata'] = DEEP;
            else {
              const list = request['messages'];
              if (Array.isArray(list) && list.length > 0) {
                (list[list.length - 1] as Record<string, unknown>)['content'] = DEEP;
              }
            }
            break;
          case 'huge': {
            const list = request['messages'];
            if (Array.isArray(list) && list.length > 0) {
              (list[list.length - 1] as Record<string, unknown>)['content'] = each.text;
            }
            break;
          }
          case 'raw':
            raw = each.bytes;
            break;
        }
      }
      let bytes = raw ?? Buffer.from(stringifyWithDeep(request, deep ?? '1'), 'utf8');
      const headers: [string, string][] = [
        ['Host', '127.0.0.1'],
        ['Connection', 'close'],
      ];
      for (const value of auth) headers.push(['Authorization', value]);
      for (const value of contentType) headers.push(['Content-Type', value]);
      for (const value of routing) headers.push(['X-Routing-Mode', value]);
      headers.push(...extra);
      if (framing === 'gzip') {
        bytes = gzipSync(bytes);
        headers.push(['Content-Encoding', 'gzip']);
      }
      for (const value of encoding) headers.push(['Content-Encoding', value]);
      let truncateAt: number | undefined;
      let chunkSize: number | undefined;
      if (framing === 'chunked') {
        headers.push(['Transfer-Encoding', 'chunked']);
        chunkSize = 1 + (at % 8192);
      } else if (framing === 'short') {
        // Declared and sent short: a complete request whose JSON is cut off.
        bytes = bytes.subarray(0, bytes.length === 0 ? 0 : at % bytes.length);
        headers.push(['Content-Length', String(bytes.length)]);
      } else {
        headers.push(['Content-Length', String(bytes.length)]);
        if (framing === 'cut') truncateAt = bytes.length === 0 ? 0 : at % bytes.length;
      }
      return printable({
        label: `chat ${mutations.map((each) => each.kind).join('+') || 'valid'}`,
        method: 'POST',
        path,
        headers,
        body: bytes,
        truncateAt,
        chunkSize,
        stopOn: WAITS_FOR_A_PERSON,
      });
    });

/** A chat request body over the gateway's 8 MiB limit, or just under it (few runs: they are big). */
export const oversizedChatCase = (key: string): fc.Arbitrary<RequestCase> =>
  fc
    .record({
      bytes: fc.constantFrom(
        6 * 1024 * 1024,
        7 * 1024 * 1024,
        8 * 1024 * 1024 - 1024,
        9 * 1024 * 1024,
      ),
      mode: fc.constantFrom('orchestration', 'passthrough', 'reasoning', 'auto'),
      stream: fc.boolean(),
      declareLength: fc.boolean(),
    })
    .map(({ bytes, mode, stream, declareLength }) => {
      const text = hugeTextOf(bytes);
      const body = Buffer.from(
        JSON.stringify({
          model: 'fleet-orchestration',
          stream,
          messages: [{ role: 'user', content: text }],
        }),
      );
      const headers: [string, string][] = [
        ['Host', '127.0.0.1'],
        ['Connection', 'close'],
        ['Authorization', `Bearer ${key}`],
        ['Content-Type', 'application/json'],
        ['X-Routing-Mode', mode],
      ];
      if (declareLength) headers.push(['Content-Length', String(body.length)]);
      else headers.push(['Transfer-Encoding', 'chunked']);
      return printable({
        label: `chat ${bytes} bytes`,
        method: 'POST',
        path: '/v1/chat/completions',
        headers,
        body,
        chunkSize: declareLength ? undefined : 64 * 1024,
        stopOn: WAITS_FOR_A_PERSON,
      });
    });

/** The hot paths and the array of each that a client fills. */
const HUGE_ARRAY_TARGETS = [
  { path: '/v1/embeddings', field: 'input', valid: '"hello"' },
  { path: '/v1/chat/completions', field: 'messages', valid: '{"role":"user","content":"hi"}' },
  { path: '/v1/responses', field: 'input', valid: '{"role":"user","content":"hi"}' },
] as const;

/** Items no route accepts in those arrays: empty objects and arrays, scalars, bad roles. */
const INVALID_ITEMS = ['{}', '[]', '1', 'null', '"x"', '{"role":"x"}', '[[]]', 'true'] as const;

/** Largest body the huge-array property builds: around the gateway's 8 MiB limit. */
const MAX_HUGE_ARRAY_BYTES = 9 * 1024 * 1024;

/**
 * A hot-path body holding one array of hundreds of thousands to millions of invalid items
 * (embeddings `input`, chat `messages`, Responses `input`), sometimes after a few valid ones:
 * validation work must follow the first few problems, not the array (1.6 million `{}` once cost
 * the gateway a gigabyte and 15 s). The count is cut so the body stays near the 8 MiB limit.
 */
export const hugeArrayCase = (key: string): fc.Arbitrary<RequestCase> =>
  fc
    .record({
      target: fc.constantFrom(...HUGE_ARRAY_TARGETS),
      item: fc.constantFrom(...INVALID_ITEMS),
      count: fc.constantFrom(100_000, 300_000, 1_000_000, 1_600_000, 3_000_000),
      validFirst: fc.nat(3),
      mode: fc.constantFrom<string[]>([], ['orchestration'], ['passthrough'], ['auto']),
      stream: fc.boolean(),
    })
    .map((shape) => hugeArrayRequest(key, shape));

/** One shape of {@link hugeArrayCase}. */
interface HugeArrayShape {
  target: (typeof HUGE_ARRAY_TARGETS)[number];
  item: string;
  count: number;
  validFirst: number;
  mode: string[];
  stream: boolean;
}

/**
 * The bodies a hostile-input probe found, run first by the huge-array property (fast-check
 * `examples`): 1.6 million `{}` as embeddings `input` (4.8 MB: a gigabyte and 15 s), 330 000
 * messages with a bad role (1.3 million issues), 1.6 million `[]` as Responses `input`.
 */
export function hugeArrayExamples(key: string): [RequestCase][] {
  const [embeddings, chat, responses] = HUGE_ARRAY_TARGETS;
  const plain = { validFirst: 0, mode: [], stream: false };
  return [
    { target: embeddings, item: '{}', count: 1_600_000 },
    { target: chat, item: '{"role":"x"}', count: 330_000 },
    { target: responses, item: '[]', count: 1_600_000 },
  ].map((shape) => [hugeArrayRequest(key, { ...plain, ...shape })]);
}

function hugeArrayRequest(
  key: string,
  { target, item, count, validFirst, mode, stream }: HugeArrayShape,
): RequestCase {
  const items = Math.max(1, Math.min(count, Math.floor(MAX_HUGE_ARRAY_BYTES / (item.length + 1))));
  const array = [
    ...new Array<string>(validFirst).fill(target.valid),
    ...new Array<string>(items).fill(item),
  ].join(',');
  const model = target.path === '/v1/embeddings' ? 'text-embedding-3-small' : 'fleet-auto';
  const body = Buffer.from(
    `{"model":"${model}","stream":${String(stream)},"${target.field}":[${array}]}`,
  );
  const headers: [string, string][] = [
    ['Host', '127.0.0.1'],
    ['Connection', 'close'],
    ['Authorization', `Bearer ${key}`],
    ['Content-Type', 'application/json'],
    ['Content-Length', String(body.length)],
  ];
  for (const value of mode) headers.push(['X-Routing-Mode', value]);
  return printable({
    label: `${target.field} of ${items} × ${item} (${body.length} bytes)`,
    method: 'POST',
    path: target.path,
    headers,
    body,
    stopOn: WAITS_FOR_A_PERSON,
  });
}

function hugeTextOf(bytes: number): string {
  return 'Pay invoice INV-7 please. '.repeat(Math.ceil(bytes / 26)).slice(0, bytes);
}

export { AGENT_PHRASES, hugeText };
