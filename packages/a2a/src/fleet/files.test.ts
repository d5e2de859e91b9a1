import { describe, expect, it } from '@jest/globals';
import {
  checkRunFile,
  cleanRunFileName,
  isInlineImage,
  MAX_RUN_FILE_NAME_LENGTH,
  newRunFileId,
  RUN_FILE_ID_PATTERN,
} from './files';
import { filesAgentOf } from './run-files-agent';
import type { AgentCard } from '../schemas/agent-card';

const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
const JPEG = Uint8Array.from([0xff, 0xd8, 0xff, 0xe0, 0, 16]);
const PDF = new TextEncoder().encode('%PDF-1.7\n');
const text = (content: string) => new TextEncoder().encode(content);

describe('cleanRunFileName', () => {
  it('keeps only the base name', () => {
    expect(cleanRunFileName('../../etc/passwd', 'file-1')).toBe('passwd');
    expect(cleanRunFileName('C:\\Users\\me\\report.pdf', 'file-1')).toBe('report.pdf');
    expect(cleanRunFileName('charts/', 'file-2')).toBe('file-2');
  });

  it('drops control characters and line separators, and replaces Markdown breakers', () => {
    expect(cleanRunFileName('chart\u0000\n\r\t.png', 'f')).toBe('chart.png');
    expect(cleanRunFileName('a\u2028b\u0085.csv', 'f')).toBe('ab.csv');
    expect(cleanRunFileName('[x](javascript:alert(1)).png', 'f')).toBe(
      '_x__javascript:alert_1__.png',
    );
    expect(cleanRunFileName('<img src="x">.html', 'f')).toBe('_img src=_x__.html');
  });

  it('makes runs of dots one and drops leading dots and spaces', () => {
    expect(cleanRunFileName('...hidden', 'f')).toBe('hidden');
    expect(cleanRunFileName('  .env', 'f')).toBe('env');
    expect(cleanRunFileName('a....b..csv', 'f')).toBe('a.b.csv');
  });

  it('falls back when nothing is left', () => {
    expect(cleanRunFileName(undefined, 'file-3')).toBe('file-3');
    expect(cleanRunFileName('', 'file-3')).toBe('file-3');
    expect(cleanRunFileName('\u0001\u0002', 'file-3')).toBe('file-3');
    expect(cleanRunFileName('../..', 'file-3')).toBe('file-3');
  });

  it('cuts long names to the limit, keeping a short extension', () => {
    const long = `${'a'.repeat(300)}.png`;
    const cut = cleanRunFileName(long, 'f');
    expect(cut).toHaveLength(MAX_RUN_FILE_NAME_LENGTH);
    expect(cut.endsWith('.png')).toBe(true);
    const longExtension = `name.${'x'.repeat(300)}`;
    expect(cleanRunFileName(longExtension, 'f')).toHaveLength(MAX_RUN_FILE_NAME_LENGTH);
    expect(cleanRunFileName('short.png', 'f')).toBe('short.png');
  });

  it('normalises to NFC', () => {
    expect(cleanRunFileName('cafe\u0301.txt', 'f')).toBe('caf\u00e9.txt');
  });
});

describe('checkRunFile', () => {
  it('accepts an allowed type whose bytes match', () => {
    expect(checkRunFile({ name: 'chart.png', mediaType: 'image/png', bytes: PNG })).toEqual({
      ok: true,
      mediaType: 'image/png',
      active: false,
    });
    expect(checkRunFile({ name: 'photo.jpg', mediaType: 'IMAGE/JPEG', bytes: JPEG })).toMatchObject(
      {
        ok: true,
        mediaType: 'image/jpeg',
      },
    );
    expect(checkRunFile({ name: 'r.pdf', mediaType: 'application/pdf', bytes: PDF })).toMatchObject(
      {
        ok: true,
        mediaType: 'application/pdf',
      },
    );
  });

  it('drops parameters of the claimed type', () => {
    expect(
      checkRunFile({ name: 'data.csv', mediaType: 'text/csv; charset=utf-8', bytes: text('a,b') }),
    ).toEqual({ ok: true, mediaType: 'text/csv', active: false });
  });

  it('takes the type from the extension for octet-stream or no type', () => {
    expect(
      checkRunFile({ name: 'chart.png', mediaType: 'application/octet-stream', bytes: PNG }),
    ).toEqual({ ok: true, mediaType: 'image/png', active: false });
    expect(checkRunFile({ name: 'notes.md', mediaType: undefined, bytes: text('# x') })).toEqual({
      ok: true,
      mediaType: 'text/markdown',
      active: false,
    });
  });

  it('refuses an image whose bytes are not that image, naming the file', () => {
    const fake = checkRunFile({ name: 'chart.png', mediaType: 'image/png', bytes: text('<svg/>') });
    expect(fake).toEqual({
      ok: false,
      reason: 'chart.png says it is image/png but its content is not',
    });
    const octet = checkRunFile({
      name: 'chart.png',
      mediaType: 'application/octet-stream',
      bytes: JPEG,
    });
    expect(octet.ok).toBe(false);
    expect(
      checkRunFile({ name: 'x.pdf', mediaType: 'application/pdf', bytes: new Uint8Array() }).ok,
    ).toBe(false);
  });

  it('refuses types off the allow-list, naming the file and the type', () => {
    const exe = checkRunFile({
      name: 'setup.exe',
      mediaType: 'application/x-msdownload',
      bytes: text('MZ'),
    });
    expect(exe.ok).toBe(false);
    expect(exe.ok ? '' : exe.reason).toMatch(
      /^setup\.exe \(application\/x-msdownload\) is not a kind of file the fleet keeps/,
    );
    // A claimed type off the list is not rescued by a harmless extension.
    expect(
      checkRunFile({ name: 'chart.png', mediaType: 'application/x-msdownload', bytes: PNG }).ok,
    ).toBe(false);
    const unknown = checkRunFile({ name: 'blob.bin', mediaType: undefined, bytes: text('x') });
    expect(unknown.ok ? '' : unknown.reason).toMatch(/blob\.bin \(no type\)/);
  });

  it('marks SVG and HTML active and images not', () => {
    expect(
      checkRunFile({ name: 'a.svg', mediaType: 'image/svg+xml', bytes: text('<svg/>') }),
    ).toEqual({
      ok: true,
      mediaType: 'image/svg+xml',
      active: true,
    });
    expect(checkRunFile({ name: 'a.html', mediaType: undefined, bytes: text('<p>') })).toEqual({
      ok: true,
      mediaType: 'text/html',
      active: true,
    });
    expect(isInlineImage('image/svg+xml')).toBe(false);
    expect(isInlineImage('text/html')).toBe(false);
    expect(isInlineImage('image/png')).toBe(true);
  });
});

describe('newRunFileId', () => {
  it('makes distinct ids of the documented form', () => {
    const ids = new Set(Array.from({ length: 100 }, () => newRunFileId()));
    expect(ids.size).toBe(100);
    for (const id of ids) expect(id).toMatch(RUN_FILE_ID_PATTERN);
  });
});

describe('filesAgentOf', () => {
  const card = (name: string, tags: string[][]): AgentCard =>
    ({
      name,
      skills: tags.map((skillTags, index) => ({ id: `s${index}`, tags: skillTags })),
    }) as unknown as AgentCard;

  it('finds the agent with a skill tagged files and run-files', () => {
    const agents = [
      { url: 'http://docs', card: card('docs', [['documents', 'ingest'], ['files']]) },
      { url: 'http://rag', card: card('rag', [['rag'], ['files', 'run-files']]) },
    ];
    expect(filesAgentOf(agents)?.url).toBe('http://rag');
    expect(filesAgentOf(agents.slice(0, 1))).toBeUndefined();
    expect(filesAgentOf([])).toBeUndefined();
  });
});
