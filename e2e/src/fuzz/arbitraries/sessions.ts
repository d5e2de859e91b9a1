import fc from 'fast-check';
import {
  DEEP,
  deepJsonText,
  rarely,
  hugeText,
  jsonValue,
  stringifyWithDeep,
  unicodeText,
} from './common';
import { authorization } from './gateway';
import { printable, type RequestCase } from './request-case';

/** Real ids from the suite's set-up: a session waiting for an approval, and one for an answer. */
export interface KnownIds {
  sessionIds: string[];
  approvalIds: string[];
  inputIds: string[];
}

/** Percent-escapes that do not decode (a lone `%`, non-hex digits, a cut or overlong sequence). */
export const MALFORMED_ESCAPES = [
  '%',
  '%zz',
  '%E0%A4%A',
  '%C0%AF',
  'a%',
  '%%',
  '%u00e9',
  '%D8%00',
] as const;

/** A path segment: a real id, a plausible one, an encoded string, or raw bytes that break URLs. */
const segment = (known: string[], malformedEscapes: boolean): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: malformedEscapes ? 3 : 0, arbitrary: fc.constantFrom(...MALFORMED_ESCAPES) },
    {
      weight: known.length > 0 ? 4 : 0,
      arbitrary: fc.constantFrom(...(known.length > 0 ? known : ['x'])),
    },
    { weight: 3, arbitrary: fc.uuid() },
    {
      weight: 4,
      arbitrary: unicodeText(80).map((value) =>
        encodeURIComponent(value.replace(/[\uD800-\uDFFF]/g, '')),
      ),
    },
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        '%00',
        '..',
        '.',
        '%2e%2e',
        '..%2F..%2Fetc%2Fpasswd',
        '%2F',
        'a%20b',
        '__proto__',
        'constructor',
        'toString',
        '*',
        '?',
        ';x=1',
        '',
      ),
    },
    { weight: 1, arbitrary: hugeText(16 * 1024).map((value) => encodeURIComponent(value)) },
    {
      weight: 1,
      arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 }).map((value) =>
        Buffer.from(value, 'utf8')
          .toString('latin1')
          .replace(/[\s\0]/g, '_'),
      ),
    },
  );

/** The decision body: never a valid `approve` (nothing in this suite ever approves). */
const decisionBody = fc.oneof(
  {
    weight: 8,
    arbitrary: fc
      .record(
        {
          decision: fc.oneof(
            fc.constantFrom(
              'deny',
              'APPROVE',
              'approve ',
              'Approve',
              'yes',
              '',
              null,
              1,
              true,
              [],
              {},
              DEEP,
            ),
            unicodeText(30).filter((value) => value !== 'approve'),
          ),
          instructions: fc.oneof(unicodeText(), hugeText(6000), fc.constantFrom(null, 5, [], DEEP)),
          unknown: jsonValue(2),
        },
        { requiredKeys: [] },
      )
      .chain((value) =>
        fc
          .option(deepJsonText(50, 20_000), { nil: undefined, freq: 4 })
          .map((deep) => Buffer.from(stringifyWithDeep(value, deep ?? '1'))),
      ),
  },
  {
    weight: 2,
    arbitrary: fc
      .constantFrom(
        '',
        'null',
        '[]',
        '"deny"',
        '{',
        '{"decision":"deny"',
        '{"decision":"deny","decision":"approve"}',
        '\uFEFF{"decision":"deny"}',
      )
      .filter((text) => !text.includes('"approve"'))
      .map((text) => Buffer.from(text)),
  },
  {
    weight: 1,
    arbitrary: fc
      .integer({ min: 64 * 1024, max: 200 * 1024 })
      .map((size) =>
        Buffer.from(JSON.stringify({ decision: 'deny', instructions: 'x'.repeat(size) })),
      ),
  },
);

/** The answer body of `POST …/inputs/{id}`. */
const answerBody = fc.oneof(
  {
    weight: 8,
    arbitrary: fc
      .record(
        {
          text: fc.oneof(
            unicodeText(),
            hugeText(20_000),
            fc.constantFrom('', '   ', null, 5, [], {}, DEEP),
          ),
          unknown: jsonValue(2),
        },
        { requiredKeys: [] },
      )
      .chain((value) =>
        fc
          .option(deepJsonText(50, 20_000), { nil: undefined, freq: 4 })
          .map((deep) => Buffer.from(stringifyWithDeep(value, deep ?? '1'))),
      ),
  },
  {
    weight: 2,
    arbitrary: fc
      .constantFrom('', 'null', '"text"', '{', '{"text":')
      .map((text) => Buffer.from(text)),
  },
  {
    weight: 1,
    arbitrary: fc
      .integer({ min: 64 * 1024, max: 200 * 1024 })
      .map((size) => Buffer.from(JSON.stringify({ text: 'x'.repeat(size) }))),
  },
);

/** The review decisions a body may name; the fuzzer never sends one as such (see below). */
const REVIEW_DECISIONS = ['approve', 'revise', 'replan', 'recompose'];

/**
 * The body of `POST …/review`: every shape but a valid decision (a fuzzed request never decides a
 * review), deep, over the 32 KiB limit, cut off.
 */
const reviewBody = fc.oneof(
  {
    weight: 8,
    arbitrary: fc
      .record(
        {
          decision: fc.oneof(
            fc.constantFrom('', 'Approve', 'REVISE', 'deny', null, 5, [], {}, DEEP),
            unicodeText(30).filter((value) => !REVIEW_DECISIONS.includes(value)),
          ),
          steps: fc.oneof(
            fc.array(unicodeText(70), { maxLength: 40 }),
            fc.constantFrom(null, 5, 'n1', [], [5], DEEP),
          ),
          feedback: fc.oneof(unicodeText(), hugeText(6000), fc.constantFrom(null, 5, [], DEEP)),
          unknown: jsonValue(2),
        },
        { requiredKeys: [] },
      )
      .chain((value) =>
        fc
          .option(deepJsonText(50, 20_000), { nil: undefined, freq: 4 })
          .map((deep) => Buffer.from(stringifyWithDeep(value, deep ?? '1'))),
      ),
  },
  {
    weight: 2,
    arbitrary: fc
      .constantFrom('', 'null', '[]', '"revise"', '{', '{"decision":"revise"', '{"steps":[')
      .map((text) => Buffer.from(text)),
  },
  {
    weight: 1,
    arbitrary: fc
      .integer({ min: 32 * 1024, max: 200 * 1024 })
      .map((size) =>
        Buffer.from(JSON.stringify({ decision: 'replan', feedback: 'x'.repeat(size) })),
      ),
  },
);

/**
 * The sessions API: `GET`/`DELETE /v1/sessions/{id}`, its approvals and inputs lists, the list's
 * `?limit=`, and `POST …/approvals/{id}`, `…/inputs/{id}` and `…/review` with generated bodies.
 */
export const sessionsCase = (
  key: string,
  known: () => KnownIds,
  { malformedEscapes = false }: { malformedEscapes?: boolean } = {},
): fc.Arbitrary<RequestCase> => {
  const ids = known();
  return fc
    .record({
      route: fc.constantFrom(
        'get',
        'delete',
        'approvals',
        'inputs',
        'list',
        'decide',
        'answer',
        'decide',
        'answer',
        'review',
      ),
      session: segment(ids.sessionIds, malformedEscapes),
      approval: segment(ids.approvalIds, malformedEscapes),
      input: segment(ids.inputIds, malformedEscapes),
      limit: fc.oneof(
        fc.constantFrom('', '0', '1', '100', '101', '-1', '1e3', 'NaN', 'x', '50&limit=2'),
        fc.integer().map(String),
      ),
      decision: decisionBody,
      answer: answerBody,
      review: reviewBody,
      authorization: authorization(key),
      contentType: fc.constantFrom<string[]>(
        ['application/json'],
        ['application/json'],
        [],
        ['text/plain'],
        ['application/json', 'text/plain'],
      ),
      cut: rarely(fc.nat(), 8),
    })
    .map(
      ({
        route,
        session,
        approval,
        input,
        limit,
        decision,
        answer,
        review,
        authorization: auth,
        contentType,
        cut,
      }) => {
        const headers: [string, string][] = [
          ['Host', '127.0.0.1'],
          ['Connection', 'close'],
        ];
        for (const value of auth) headers.push(['Authorization', value]);
        let method = 'GET';
        let path = `/v1/sessions/${session}`;
        let body: Buffer | undefined;
        switch (route) {
          case 'get':
            break;
          case 'delete':
            method = 'DELETE';
            break;
          case 'approvals':
          case 'inputs':
            path += `/${route}`;
            break;
          case 'list':
            path = `/v1/sessions?limit=${limit}`;
            break;
          case 'decide':
            method = 'POST';
            path += `/approvals/${approval}`;
            body = decision;
            break;
          case 'answer':
            method = 'POST';
            path += `/inputs/${input}`;
            body = answer;
            break;
          case 'review':
            method = 'POST';
            path += '/review';
            body = review;
            break;
        }
        if (body !== undefined) {
          for (const value of contentType) headers.push(['Content-Type', value]);
          headers.push(['Content-Length', String(body.length)]);
        }
        return printable({
          label: `sessions ${route}`,
          method,
          path,
          headers,
          body,
          truncateAt:
            body !== undefined && cut !== undefined && body.length > 0
              ? cut % body.length
              : undefined,
        });
      },
    );
};
