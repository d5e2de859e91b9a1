import fc from 'fast-check';
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

/** Methods that do not exist, or are refused (push notifications). */
const OTHER_METHODS = [
  'GetExtendedAgentCard',
  'CreateTaskPushNotificationConfig',
  'GetTaskPushNotificationConfig',
  'message/send',
  'tasks/get',
  'sendMessage',
  '',
  'constructor',
  '__proto__',
] as const;

/** A valid part: text (mostly an agent phrase or unicode), data, raw base64, or a URL. */
const validPart = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({ text: fc.oneof(fc.constantFrom(...AGENT_PHRASES), unicodeText()) }),
  },
  {
    weight: 2,
    arbitrary: fc.record(
      {
        data: fc.oneof(
          jsonValue(4),
          // The fleet's own data parts, with generated members: node input, plan requests.
          fc.record({
            fleet: fc.record(
              {
                tenant: fc.oneof(fc.string(), jsonValue(1)),
                history: fc.oneof(
                  fc.array(fc.record({ role: fc.string(), content: jsonValue(1) }), {
                    maxLength: 3,
                  }),
                  jsonValue(2),
                ),
                planApproval: fc.constantFrom('none', 'required', 'x', 1),
                user: jsonValue(1),
                task: unicodeText(),
                dependencies: jsonValue(2),
              },
              { requiredKeys: [] },
            ),
          }),
        ),
        mediaType: fc.constantFrom('application/json', 'text/plain', ''),
      },
      { requiredKeys: ['data'] },
    ),
  },
  {
    weight: 1,
    arbitrary: fc.record(
      {
        raw: fc.base64String({ maxLength: 2000 }),
        mediaType: fc.constantFrom(
          'text/plain',
          'application/pdf',
          'image/png',
          'application/zip',
          '',
        ),
        filename: fc.oneof(fc.constantFrom('a.txt', '../x', ''), unicodeText(30)),
      },
      { requiredKeys: ['raw'] },
    ),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      url: fc.oneof(
        fc.webUrl(),
        fc.constantFrom(
          'file:///etc/passwd',
          'http://169.254.169.254/latest/meta-data/',
          'http://127.0.0.1:1/',
          'javascript:alert(1)',
          'gopher://x',
          '',
          'not a url',
        ),
      ),
    }),
  },
);

/** Parts that break the schema: none of the members, two of them, wrong types, not objects. */
const badPart = fc.oneof(
  fc.constantFrom(
    {},
    { text: 'a', data: 1 },
    { text: null },
    { raw: 5 },
    null,
    'text',
    [],
    { metadata: 'x' },
    { text: DEEP },
    { data: DEEP },
  ),
  fc.record({ raw: fc.oneof(fc.string(), fc.constantFrom('', '====', '\u00ff')) }),
  fc.record({ text: hugeText(200 * 1024) }),
);

const MESSAGE_FIELDS = [
  'messageId',
  'role',
  'parts',
  'contextId',
  'taskId',
  'referenceTaskIds',
  'extensions',
  'metadata',
] as const;
const ENVELOPE_FIELDS = ['jsonrpc', 'id', 'method', 'params'] as const;

/** A wrong value for a member: another type, null, empty, nesting, a deep placeholder. */
const badValue = fc.oneof(
  fc.constantFrom(null, '', 0, -1, 1.5, 1e300, true, [], {}, [null], DEEP, 'ROLE_AGENT', '1.0'),
  jsonValue(3),
  unicodeText(40),
);

/** A valid request for one of the A2A v1.0 methods (most often sending a message). */
const validEnvelope = fc
  .record({
    id: fc.oneof(fc.integer(), fc.string({ maxLength: 40 })),
    method: fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom('SendMessage', 'SendStreamingMessage') },
      {
        weight: 3,
        arbitrary: fc.constantFrom('GetTask', 'ListTasks', 'CancelTask', 'SubscribeToTask'),
      },
    ),
    parts: fc.array(validPart, { minLength: 1, maxLength: 3 }),
    messageId: fc.uuid(),
    returnImmediately: fc.option(fc.boolean(), { nil: undefined }),
    taskId: fc.uuid(),
    listParams: fc.record(
      {
        pageSize: fc.integer({ min: 1, max: 100 }),
        status: fc.constantFrom(
          'TASK_STATE_COMPLETED',
          'TASK_STATE_FAILED',
          'TASK_STATE_AUTH_REQUIRED',
        ),
        historyLength: fc.nat(10),
        includeArtifacts: fc.boolean(),
      },
      { requiredKeys: [] },
    ),
  })
  .map(({ id, method, parts, messageId, returnImmediately, taskId, listParams }) => {
    let params: Record<string, unknown>;
    if (method === 'SendMessage' || method === 'SendStreamingMessage') {
      params = {
        message: { messageId, role: 'ROLE_USER', parts },
        ...(returnImmediately === undefined ? {} : { configuration: { returnImmediately } }),
      };
    } else if (method === 'ListTasks') params = listParams;
    else params = { id: taskId };
    const envelope: Record<string, unknown> = { jsonrpc: '2.0', id, method, params };
    return envelope;
  });

/** One thing done wrong to an otherwise valid request (shrinking drops them one by one). */
const mutation = fc.oneof(
  fc.record({
    kind: fc.constant('envelope' as const),
    field: fc.constantFrom(...ENVELOPE_FIELDS),
    value: badValue,
  }),
  fc.record({ kind: fc.constant('drop' as const), field: fc.constantFrom(...ENVELOPE_FIELDS) }),
  fc.record({
    kind: fc.constant('method' as const),
    method: fc.oneof(fc.constantFrom(...OTHER_METHODS), unicodeText(40)),
  }),
  fc.record({ kind: fc.constant('extra' as const), value: jsonValue(2) }),
  fc.record({ kind: fc.constant('params' as const), value: fc.oneof(badValue, jsonValue(3)) }),
  fc.record({
    kind: fc.constant('message' as const),
    field: fc.constantFrom(...MESSAGE_FIELDS),
    value: fc.oneof(badValue, fc.uuid()),
  }),
  fc.record({ kind: fc.constant('part' as const), part: badPart }),
  fc.record({ kind: fc.constant('deep' as const), deep: deepJsonText(50, 20_000) }),
  fc.record({
    kind: fc.constant('auth' as const),
    values: fc.constantFrom<string[]>(
      [],
      ['Bearer wrong'],
      ['TOKENx'],
      ['bearer TOKEN'],
      ['Bearer TOKEN', 'Bearer wrong'],
      [`Bearer ${'t'.repeat(20_000)}`],
    ),
  }),
  fc.record({
    kind: fc.constant('version' as const),
    values: fc.constantFrom<string[]>([], ['0.3'], ['1.0.0'], [' 1.0 '], ['1.0', '0.3'], ['x']),
  }),
  fc.record({
    kind: fc.constant('content-type' as const),
    values: fc.constantFrom<string[]>(
      [],
      ['text/plain'],
      ['application/json; charset=latin1'],
      ['application/json', 'text/plain'],
      ['application/a2a+json'],
    ),
  }),
  fc.record({ kind: fc.constant('cut' as const), at: fc.nat() }),
  fc.record({
    kind: fc.constant('raw' as const),
    bytes: fc.oneof(
      fc
        .constantFrom(
          '',
          '{',
          'null',
          '[]',
          '"x"',
          '{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"a"}',
          '\uFEFF{}',
        )
        .map((text) => Buffer.from(text)),
      fc.uint8Array({ maxLength: 256 }).map((bytes) => Buffer.from(bytes)),
      deepJsonText(50, 100_000).map((deep) => Buffer.from(deep)),
      deepJsonText(50, 100_000).map((deep) =>
        Buffer.from(
          `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"data":${deep}}]}}}`,
        ),
      ),
    ),
  }),
  fc.record({ kind: fc.constant('batch' as const), size: fc.nat(3) }),
);

type Mutation = typeof mutation extends fc.Arbitrary<infer T> ? T : never;

/**
 * `POST /a2a` on one of `targets`: a valid JSON-RPC request (SendMessage and SendStreamingMessage
 * with generated parts most often, GetTask, ListTasks, CancelTask, SubscribeToTask) with the
 * internal token and `A2A-Version: 1.0`, then none, one or a few {@link mutation}s: bad jsonrpc,
 * ids of every type, unknown methods, params and message members of the wrong shape, bad parts,
 * deep nesting, huge text, no or a wrong token, version or content type, a batch, a body cut off.
 */
export const a2aCase = (
  targets: readonly string[],
  token: string,
): fc.Arbitrary<RequestCase & { target: string }> =>
  fc
    .record({
      target: fc.nat(),
      envelope: validEnvelope,
      mutations: fc.oneof(
        { weight: 3, arbitrary: fc.constant<Mutation[]>([]) },
        { weight: 5, arbitrary: fc.array(mutation, { minLength: 1, maxLength: 3 }) },
      ),
    })
    .map(({ target, envelope, mutations }) => {
      const chosen = targets[target % targets.length]!;
      const value = structuredClone(envelope);
      let auth = [`Bearer ${token}`];
      let version = ['1.0'];
      let contentType = ['application/json'];
      let cut: number | undefined;
      let deep: string | undefined;
      let raw: Buffer | undefined;
      let batch: number | undefined;
      const params = (): Record<string, unknown> | undefined => {
        const current = value['params'];
        return typeof current === 'object' && current !== null && !Array.isArray(current)
          ? (current as Record<string, unknown>)
          : undefined;
      };
      const message = (): Record<string, unknown> | undefined => {
        const current = params()?.['message'];
        return typeof current === 'object' && current !== null && !Array.isArray(current)
          ? (current as Record<string, unknown>)
          : undefined;
      };
      for (const each of mutations) {
        switch (each.kind) {
          case 'envelope':
            value[each.field] = each.value;
            break;
          case 'drop':
            delete value[each.field];
            break;
          case 'method':
            value['method'] = each.method;
            break;
          case 'extra':
            value['extra'] = each.value;
            break;
          case 'params':
            value['params'] = each.value;
            break;
          case 'message': {
            const target = message();
            if (target !== undefined) target[each.field] = each.value;
            break;
          }
          case 'part': {
            const parts = message()?.['parts'];
            if (Array.isArray(parts)) parts.push(each.part);
            break;
          }
          case 'deep': {
            deep = each.deep;
            const target = message() ?? params();
            if (target !== undefined) target['metadata'] = DEEP;
            else value['params'] = DEEP;
            break;
          }
          case 'auth':
            auth = each.values.map((each) => each.replaceAll('TOKEN', token));
            break;
          case 'version':
            version = each.values;
            break;
          case 'content-type':
            contentType = each.values;
            break;
          case 'cut':
            cut = each.at;
            break;
          case 'raw':
            raw = each.bytes;
            break;
          case 'batch':
            batch = each.size;
            break;
        }
      }
      const json = stringifyWithDeep(value, deep ?? '1');
      const bytes =
        raw ??
        Buffer.from(
          batch === undefined ? json : `[${Array.from({ length: batch }, () => json).join(',')}]`,
        );
      const headers: [string, string][] = [
        ['Host', '127.0.0.1'],
        ['Connection', 'close'],
      ];
      for (const each of auth) headers.push(['Authorization', each]);
      for (const each of version) headers.push(['A2A-Version', each]);
      for (const each of contentType) headers.push(['Content-Type', each]);
      headers.push(['Content-Length', String(bytes.length)]);
      return printable({
        label: `a2a ${chosen} ${String(value['method'])} ${mutations.map((each) => each.kind).join('+') || 'valid'}`,
        target: chosen,
        method: 'POST',
        path: '/a2a',
        headers,
        body: bytes,
        truncateAt: cut === undefined || bytes.length === 0 ? undefined : cut % bytes.length,
      });
    });
