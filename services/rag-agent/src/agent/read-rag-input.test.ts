import { describe, expect, it } from '@jest/globals';
import { dataPart, textPart } from '@fleet/a2a';
import { PayloadTooLargeError, ValidationError } from '@fleet/errors';
import { decodeFilePart, readRagInput } from './read-rag-input';

const node = (fleet: Record<string, unknown>) =>
  dataPart({ fleet: { sessionId: 's', nodeId: 'n', tenant: 'acme', ...fleet } });

describe('readRagInput', () => {
  it('reads a question with the node input, skill included', () => {
    const input = readRagInput([textPart('What is the refund policy?'), node({ skill: 'search' })]);
    expect(input).toMatchObject({
      kind: 'question',
      question: 'What is the refund policy?',
      node: { tenant: 'acme', skill: 'search', dependencyOutputs: {} },
    });
  });

  it('reads a documents command with its file parts, naming a file from its media type', () => {
    const input = readRagInput([
      dataPart({ documents: { op: 'ingest', tenant: 'acme' } }),
      { raw: 'aGVsbG8=', filename: 'a.txt', mediaType: 'text/plain' },
      { raw: 'aGVsbG8=', mediaType: 'text/markdown; charset=utf-8' },
    ]);
    expect(input).toEqual({
      kind: 'documents',
      command: { op: 'ingest', tenant: 'acme' },
      files: [
        { filename: 'a.txt', raw: 'aGVsbG8=', mediaType: 'text/plain' },
        { filename: 'document.md', raw: 'aGVsbG8=', mediaType: 'text/markdown' },
      ],
    });
  });

  it('reads a get command by id or by filename, and refuses one naming both or neither', () => {
    expect(
      readRagInput([dataPart({ documents: { op: 'get', tenant: 'acme', id: 'd1' } })]),
    ).toEqual({ kind: 'documents', command: { op: 'get', tenant: 'acme', id: 'd1' }, files: [] });
    expect(
      readRagInput([dataPart({ documents: { op: 'get', tenant: 'acme', filename: 'a.pdf' } })]),
    ).toMatchObject({ kind: 'documents', command: { op: 'get', filename: 'a.pdf' } });
    for (const command of [
      { op: 'get', tenant: 'acme' },
      { op: 'get', tenant: 'acme', id: 'd1', filename: 'a.pdf' },
    ]) {
      const input = readRagInput([dataPart({ documents: command })]);
      expect(input.kind).toBe('invalid');
      expect(input.kind === 'invalid' ? input.reason : '').toMatch(/exactly one of id or filename/);
    }
  });

  it('treats a plan node with the ingest skill as an ingest into the node’s tenant', () => {
    const input = readRagInput([node({ skill: 'ingest' }), { raw: 'eA==', filename: 'x.md' }]);
    expect(input).toMatchObject({ kind: 'documents', command: { op: 'ingest', tenant: 'acme' } });
  });

  it('says what is missing or wrong', () => {
    expect(readRagInput([textPart('hi')])).toMatchObject({ kind: 'invalid' });
    expect(readRagInput([node({}), textPart('  ')])).toEqual({
      kind: 'invalid',
      reason: 'The question (text part) is empty.',
    });
    expect(readRagInput([dataPart({ fleet: { tenant: 'x' } }), textPart('q')])).toMatchObject({
      kind: 'invalid',
      reason: expect.stringContaining('The fleet data part is invalid'),
    });
    expect(
      readRagInput([
        dataPart({ documents: { op: 'ingest', tenant: 'acme' } }),
        { url: 'https://example.com/a.pdf' },
      ]),
    ).toMatchObject({ kind: 'invalid', reason: expect.stringContaining('does not fetch files') });
    expect(
      readRagInput([dataPart({ documents: { op: 'ingest', tenant: 'acme' } }), { raw: 'eA==' }]),
    ).toMatchObject({ kind: 'invalid', reason: expect.stringContaining('neither a filename') });
  });
});

describe('readRagInput with a run files command', () => {
  const put = { op: 'put', tenant: 'acme', expiresAt: '2030-01-01T00:00:00Z' };

  it('reads a put with its file parts, source defaulting to step, names left to the store', () => {
    expect(
      readRagInput([
        dataPart({ files: put }),
        { raw: 'eA==', filename: '../chart.png', mediaType: 'image/png' },
        { raw: 'eQ==' },
      ]),
    ).toEqual({
      kind: 'files',
      command: { ...put, source: 'step' },
      files: [
        { raw: 'eA==', filename: '../chart.png', mediaType: 'image/png' },
        { raw: 'eQ==', filename: undefined, mediaType: undefined },
      ],
    });
    expect(
      readRagInput([dataPart({ files: { op: 'list', tenant: 'acme', sessionId: 's-1' } })]),
    ).toMatchObject({ kind: 'files', command: { op: 'list', sessionId: 's-1' }, files: [] });
  });

  it('rejects a put without files, a URL part, a bad id and an unknown op', () => {
    expect(readRagInput([dataPart({ files: put })])).toMatchObject({
      kind: 'invalid',
      reason: expect.stringContaining('at least one file part'),
    });
    expect(
      readRagInput([dataPart({ files: put }), { url: 'https://example.com/a.png' }]),
    ).toMatchObject({ kind: 'invalid', reason: expect.stringContaining('does not fetch files') });
    expect(
      readRagInput([dataPart({ files: { op: 'get', tenant: 'acme', id: 'file-1' } })]),
    ).toMatchObject({ kind: 'invalid', reason: expect.stringContaining('files data part') });
    expect(readRagInput([dataPart({ files: { op: 'shred', tenant: 'acme' } })])).toMatchObject({
      kind: 'invalid',
    });
  });
});

describe('decodeFilePart', () => {
  it('decodes base64 and base64url', () => {
    expect(
      Buffer.from(decodeFilePart({ filename: 'a.txt', raw: 'aGVs\nbG8=' }, 100).bytes).toString(),
    ).toBe('hello');
    expect(Buffer.from(decodeFilePart({ filename: 'a.bin', raw: '-_8' }, 100).bytes)).toEqual(
      Buffer.from([0xfb, 0xff]),
    );
  });

  it('refuses a file over the limit before decoding it, and text that is not base64', () => {
    expect(() => decodeFilePart({ filename: 'big.pdf', raw: 'A'.repeat(4000) }, 1024)).toThrow(
      PayloadTooLargeError,
    );
    expect(() => decodeFilePart({ filename: 'bad.pdf', raw: 'not base64!' }, 1024)).toThrow(
      ValidationError,
    );
  });
});
