import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { documentMediaType, expandDocumentPaths, isDocumentFile } from './document-files';

let root: string;

async function touch(relative: string, text = 'x'): Promise<void> {
  const file = path.join(root, relative);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, text);
}

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'fleet-documents-'));
  await touch('docs/b-guide.md');
  await touch('docs/a-report.PDF');
  await touch('docs/notes.text');
  await touch('docs/image.png');
  await touch('docs/questions.json');
  await touch('docs/nested/deeper/table.xlsx');
  await touch('docs/nested/page.htm');
  await touch('docs/.hidden/secret.md');
  await touch('docs/node_modules/pkg/README.md');
  await touch('empty/picture.jpg');
  await touch('single.csv');
  await touch('archive.zip');
  // A loop: docs/nested/loop → docs.
  await symlink(path.join(root, 'docs'), path.join(root, 'docs/nested/loop'));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('expandDocumentPaths', () => {
  it('searches directories recursively for supported files, sorted, skipping hidden folders and node_modules', async () => {
    const { files, problems } = await expandDocumentPaths({ paths: ['docs'], cwd: root });
    expect(files.map((file) => path.relative(root, file))).toEqual([
      'docs/a-report.PDF',
      'docs/b-guide.md',
      'docs/nested/deeper/table.xlsx',
      'docs/nested/page.htm',
      'docs/notes.text',
    ]);
    expect(problems).toEqual([]);
  });

  it('takes files as given, each once, and leaves out excluded names', async () => {
    const { files, problems } = await expandDocumentPaths({
      paths: ['single.csv', 'docs', path.join(root, 'single.csv'), 'docs/b-guide.md'],
      cwd: root,
      exclude: ['notes.text'],
    });
    expect(files.map((file) => path.relative(root, file))).toEqual([
      'single.csv',
      'docs/a-report.PDF',
      'docs/b-guide.md',
      'docs/nested/deeper/table.xlsx',
      'docs/nested/page.htm',
    ]);
    expect(problems).toEqual([]);
  });

  it('reports missing paths, unsupported files and directories without documents', async () => {
    const { files, problems } = await expandDocumentPaths({
      paths: ['missing.pdf', 'archive.zip', 'empty'],
      cwd: root,
    });
    expect(files).toEqual([]);
    expect(problems).toEqual([
      { path: 'missing.pdf', reason: 'no such file or directory' },
      { path: 'archive.zip', reason: expect.stringContaining('not a supported document type') },
      { path: 'empty', reason: expect.stringContaining('no documents in it') },
    ]);
  });
});

describe('isDocumentFile', () => {
  it('knows the extensions the RAG agent ingests, in any case', () => {
    for (const name of [
      'a.pdf',
      'b.DOCX',
      'c.xlsx',
      'd.csv',
      'e.txt',
      'f.md',
      'g.markdown',
      'h.html',
      'i.htm',
    ]) {
      expect(isDocumentFile(name)).toBe(true);
    }
    for (const name of ['a.doc', 'b.xls', 'c.json', 'README', 'd.pdf.zip']) {
      expect(isDocumentFile(name)).toBe(false);
    }
    expect(documentMediaType('report.PDF')).toBe('application/pdf');
    expect(documentMediaType('README')).toBe('application/octet-stream');
  });
});
