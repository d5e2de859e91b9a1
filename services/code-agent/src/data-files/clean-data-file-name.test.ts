import { describe, expect, it } from '@jest/globals';
import { isSafeDataFileName, MAX_DATA_FILE_NAME_LENGTH } from '../sandbox';
import { cleanDataFileName } from './clean-data-file-name';

function clean(names: (string | undefined)[]): string[] {
  const taken = new Set<string>();
  return names.map((name, index) => cleanDataFileName(name, { index, taken }));
}

describe('cleanDataFileName', () => {
  it('keeps the base name only, whatever the path says', () => {
    expect(
      clean(['../../etc/passwd', '/abs/path/sales.csv', 'C:\\Users\\x\\report.json', 'dir/']),
    ).toEqual(['passwd', 'sales.csv', 'report.json', 'file-4']);
  });

  it('leaves no leading dot, no `..` and no control characters', () => {
    const names = clean(['.env', '..', '...', 'a..b.csv', ' .hidden', 'tab\there\u0000.txt']);
    expect(names).toEqual(['env', 'file-2', 'file-3', 'a.b.csv', 'hidden', 'tabhere.txt']);
    for (const name of names) expect(isSafeDataFileName(name)).toBe(true);
  });

  it('bounds the length and keeps the extension', () => {
    const [long] = clean([`${'x'.repeat(300)}.csv`]);
    expect(long).toHaveLength(MAX_DATA_FILE_NAME_LENGTH);
    expect(long?.endsWith('.csv')).toBe(true);
  });

  it('makes names unique, also after cleaning, and names nameless files', () => {
    expect(clean(['data.csv', 'a/data.csv', '../data.csv', undefined, 'file-4'])).toEqual([
      'data.csv',
      'data-2.csv',
      'data-3.csv',
      'file-4',
      'file-4-2',
    ]);
  });
});
