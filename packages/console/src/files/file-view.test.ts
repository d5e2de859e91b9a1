import { describe, expect, it } from '@jest/globals';
import {
  fileIdFromUrl,
  fileViewOf,
  mergeFiles,
  previewKind,
  readRefusedFile,
  readRunFile,
} from './file-view';

const ID = `file-${'0123456789abcdef'.repeat(2)}`;
const FILE = {
  id: ID,
  name: 'chart.png',
  mediaType: 'image/png',
  size: 120,
  sha256: 'f'.repeat(64),
  source: 'step',
  sessionId: 'sess-1',
  nodeId: 'chart',
  agent: 'code-agent',
  createdAt: '2026-11-28T00:00:00.000Z',
  expiresAt: '2026-11-29T00:00:00.000Z',
};

describe('run file views', () => {
  it('previews images inline, CSV/TSV as tables, text as text, and never HTML or SVG', () => {
    expect(previewKind('image/png')).toBe('image');
    expect(previewKind('IMAGE/WEBP')).toBe('image');
    expect(previewKind('text/csv; charset=utf-8')).toBe('table');
    expect(previewKind('text/tab-separated-values')).toBe('table');
    expect(previewKind('application/json')).toBe('text');
    expect(previewKind('image/svg+xml')).toBe('none');
    expect(previewKind('text/html')).toBe('none');
    expect(previewKind('application/pdf')).toBe('none');
  });

  it('reads a streamed file and makes its view with the content path', () => {
    const file = readRunFile(FILE);
    expect(file).toBeDefined();
    expect(fileViewOf(file!)).toEqual({
      id: ID,
      name: 'chart.png',
      mediaType: 'image/png',
      size: 120,
      source: 'step',
      nodeId: 'chart',
      agent: 'code-agent',
      createdAt: FILE.createdAt,
      expiresAt: FILE.expiresAt,
      url: `/v1/files/${ID}/content`,
    });
  });

  it('drops a streamed file without a proper id, name, type or size', () => {
    expect(readRunFile({ ...FILE, id: '../../v1/keys' })).toBeUndefined();
    expect(readRunFile({ ...FILE, name: '' })).toBeUndefined();
    expect(readRunFile({ ...FILE, mediaType: 7 })).toBeUndefined();
    expect(readRunFile({ ...FILE, size: -1 })).toBeUndefined();
    expect(readRunFile(null)).toBeUndefined();
    expect(readRefusedFile({ type: 'file-refused', name: 'x.exe' })).toBeUndefined();
    expect(
      readRefusedFile({ type: 'file-refused', name: 'x.exe', reason: 'not kept', nodeId: 'a' }),
    ).toEqual({
      name: 'x.exe',
      reason: 'not kept',
      nodeId: 'a',
    });
  });

  it('finds a file id only in a content path, relative or on the page origin', () => {
    expect(fileIdFromUrl(`/v1/files/${ID}/content`)).toBe(ID);
    expect(
      fileIdFromUrl(`http://127.0.0.1:8080/v1/files/${ID}/content`, 'http://127.0.0.1:8080'),
    ).toBe(ID);
    expect(
      fileIdFromUrl(`http://127.0.0.1:9/v1/files/${ID}/content`, 'http://127.0.0.1:8080'),
    ).toBeUndefined();
    expect(fileIdFromUrl(`/v1/files/${ID}`)).toBeUndefined();
    expect(fileIdFromUrl(`/v1/files/${ID}/content/../../keys`)).toBeUndefined();
  });

  it('merges the session list and the stream, first of each id kept', () => {
    const a = fileViewOf(readRunFile(FILE)!);
    const b = { ...a, id: `file-${'1'.repeat(32)}`, name: 'b.csv' };
    expect(
      mergeFiles([a], [{ ...a, name: 'again.png' }, b], undefined).map((file) => file.name),
    ).toEqual(['chart.png', 'b.csv']);
  });
});
