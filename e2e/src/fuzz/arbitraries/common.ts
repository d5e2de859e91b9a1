import fc from 'fast-check';

/** Requests that send something to an agent, so fuzzed text reaches real agents through plans. */
export const AGENT_PHRASES = [
  'Pay invoice INV-42 of 1200 EUR from the ledger',
  'Send an email to alice@example.com about the launch saying hello',
  'Reply to the latest mail from carol saying yes',
  'Run this Python code: ```python\nprint(1 + 1)\n```',
  'Search the web for the latest news about Kestrel 9',
  'What do our documents say about the Falcon project?',
  'Summarise my inbox',
  'hello',
  '',
] as const;

/** Characters that have broken parsers somewhere: controls, lone surrogates, RTL, BOM, NUL. */
const NASTY = [
  '\u0000',
  '\u0007',
  '\r\n',
  '\u2028',
  '\uFEFF',
  '\u202E',
  '\uD800',
  '\uDFFF',
  '\uD83D\uDE00',
  'e\u0301',
  '\\',
  '"',
  '%00',
  '../',
  '${}',
  '<script>',
  "'; DROP TABLE x;--",
] as const;

/** `arbitrary`'s value one time in `oneIn`, else undefined (shrinks towards undefined). */
export const rarely = <T>(arbitrary: fc.Arbitrary<T>, oneIn: number): fc.Arbitrary<T | undefined> =>
  fc.oneof({ weight: oneIn - 1, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary });

/** Unicode text: any code points, nasty characters, agent-triggering phrases, mixed. */
export const unicodeText = (maxLength = 200): fc.Arbitrary<string> =>
  fc.oneof(
    fc.string({ unit: 'binary', maxLength }),
    fc.string({ unit: 'grapheme', maxLength }),
    fc.constantFrom(...AGENT_PHRASES),
    fc
      .array(fc.oneof(fc.constantFrom(...NASTY), fc.constantFrom(...AGENT_PHRASES), fc.string()), {
        maxLength: 6,
      })
      .map((pieces) => pieces.join(' ')),
  );

/** A long string of up to `maxBytes` (one repeated unit, so generating it costs nothing). */
export const hugeText = (maxBytes: number): fc.Arbitrary<string> =>
  fc
    .record({
      size: fc.integer({ min: 1024, max: maxBytes }),
      unit: fc.constantFrom('a', 'é', '😀', 'Pay invoice ', '\u0000', '"', '\\'),
    })
    .map(({ size, unit }) => unit.repeat(Math.max(1, Math.floor(size / Buffer.byteLength(unit)))));

/** Text, sometimes huge. */
export const anyText = (maxHugeBytes: number): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 8, arbitrary: unicodeText() },
    { weight: 1, arbitrary: hugeText(maxHugeBytes) },
  );

/** JSON text nested `depth` levels deep (arrays, objects or both), without building the value. */
export const deepJsonText = (minDepth: number, maxDepth: number): fc.Arbitrary<string> =>
  fc
    .record({
      depth: fc.integer({ min: minDepth, max: maxDepth }),
      kind: fc.constantFrom('array', 'object', 'mixed'),
    })
    .map(({ depth, kind }) => {
      if (kind === 'array') return `${'['.repeat(depth)}1${']'.repeat(depth)}`;
      if (kind === 'object') return `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
      const open = Array.from({ length: depth }, (_, index) => (index % 2 === 0 ? '[' : '{"k":'));
      const close = open.map((token) => (token === '[' ? ']' : '}')).reverse();
      return `${open.join('')}null${close.join('')}`;
    });

/** Any JSON value, bounded; never an object with an `approvalDecision` key (nothing approves). */
export const jsonValue = (maxDepth = 4): fc.Arbitrary<unknown> =>
  fc
    .jsonValue({ maxDepth })
    .filter((value) => !JSON.stringify(value ?? null).includes('approvalDecision'));

/** A placeholder the body builders replace with a deep JSON text (`JSON.stringify` can't nest 10k deep). */
export const DEEP = '__FUZZ_DEEP_JSON__';

/** `JSON.stringify(value)` with every `"__FUZZ_DEEP_JSON__"` string replaced by `deep`. */
export function stringifyWithDeep(value: unknown, deep: string | undefined): string {
  const text = JSON.stringify(value) ?? 'null';
  return deep === undefined ? text : text.split(JSON.stringify(DEEP)).join(deep);
}

/** Describes a value for a failure message without printing megabytes. */
export function preview(value: string | Buffer, max = 300): string {
  const text = typeof value === 'string' ? value : value.toString('latin1');
  return text.length > max
    ? `${JSON.stringify(text.slice(0, max))}… (${text.length} chars)`
    : JSON.stringify(text);
}
