import { MAX_NODE_FILES } from '@fleet/a2a';

/**
 * Extensions of the files a request may name: what the RAG agent keeps (PDF, Word, Excel, CSV,
 * text, Markdown, HTML) and the data formats a program reads. A word with another ending
 * (`df.groupby`, `example.com`) is not a file.
 */
const FILE_EXTENSIONS = [
  'csv',
  'tsv',
  'xlsx',
  'xls',
  'json',
  'jsonl',
  'txt',
  'md',
  'markdown',
  'pdf',
  'docx',
  'html',
  'htm',
  'xml',
  'yaml',
  'yml',
  'parquet',
];

/** A file name: letters, digits, `.`, `_` or `-`, then a known extension, not followed by a word character. */
const FILE_NAME = new RegExp(
  `(?<![\\w.-])([A-Za-z0-9_][\\w.-]{0,250}\\.(?:${FILE_EXTENSIONS.join('|')}))(?![\\w-])`,
  'gi',
);
/** URLs name files of web pages, not the tenant's documents. */
const URL = /\b(?:https?|ftp|file):\/\/\S+/gi;

/**
 * The file names a request mentions (`sales.csv`, "the file report.xlsx", `/data/sales.csv` in a
 * program), in order of first mention, each once, at most {@link MAX_NODE_FILES}. A path counts
 * by its last segment; names inside URLs do not count.
 *
 * @example
 * namedFiles('plot the monthly totals from sales.csv'); // ['sales.csv']
 */
export function namedFiles(text: string): string[] {
  const names: string[] = [];
  for (const match of text.replace(URL, ' ').matchAll(FILE_NAME)) {
    const name = match[1];
    if (name === undefined || name.endsWith('.') || names.includes(name)) continue;
    names.push(name);
    if (names.length === MAX_NODE_FILES) break;
  }
  return names;
}
