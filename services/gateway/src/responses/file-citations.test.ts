import { describe, expect, it } from '@jest/globals';
import type { RunFile } from '@fleet/a2a';
import { answerAnnotations, fileCitations } from './response-object';

const file: RunFile = {
  id: 'file-0123456789abcdef0123456789abcdef',
  name: 'chart.png',
  mediaType: 'image/png',
  size: 10,
  sha256: 'a'.repeat(64),
  source: 'step',
  sessionId: 'sess-1',
  nodeId: 'n1',
  agent: 'code',
  createdAt: '2026-01-01T00:00:00.000Z',
  expiresAt: '2026-01-02T00:00:00.000Z',
};
const path = `/v1/files/${file.id}/content`;

describe('fileCitations', () => {
  it('spans a Markdown link around the path', () => {
    const text = `See [the chart](${path}) above.`;
    const [annotation] = fileCitations(text, { files: [file] });
    expect(annotation).toEqual({
      type: 'container_file_citation',
      container_id: 'sess-1',
      file_id: file.id,
      filename: 'chart.png',
      start_index: 4,
      end_index: 4 + `[the chart](${path})`.length,
    });
  });

  it('spans the bare path when it is not in a link', () => {
    const text = `Download: ${path}`;
    expect(fileCitations(text, { files: [file] })).toMatchObject([
      { start_index: 10, end_index: 10 + path.length },
    ]);
  });

  it('ignores paths of files the run does not list, and answers without files', () => {
    const other = '/v1/files/file-ffffffffffffffffffffffffffffffff/content';
    expect(fileCitations(`![x](${other})`, { files: [file] })).toEqual([]);
    expect(fileCitations(`![x](${path})`, undefined)).toEqual([]);
    expect(fileCitations(`![x](${path})`, { citations: [] })).toEqual([]);
  });

  it('orders file and URL citations by where they are in the text', () => {
    const text = `![c](${path}) and a source [1].`;
    const annotations = answerAnnotations(text, {
      files: [file],
      citations: [{ title: 'Example', url: 'https://example.com' }],
    });
    expect(annotations.map((annotation) => annotation.type)).toEqual([
      'container_file_citation',
      'url_citation',
    ]);
  });
});
