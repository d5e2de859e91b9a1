import { cleanRunFileName, isInlineImage, runFileContentPath, type RunFile } from '@fleet/a2a';
import type { StepTable } from './answer-tables';

/**
 * A run file as a Markdown link to its bytes at the gateway (`/v1/files/{id}/content`, relative:
 * the reader's client sends its API key): an image shown inline ({@link isInlineImage}: PNG,
 * JPEG, GIF, WebP), anything else — HTML and SVG included, which are only ever downloads — a link.
 * File names are cleaned when kept, so they hold none of the characters a link breaks on.
 *
 * @example
 * fileLink({ id: 'file-…', name: 'chart.png', mediaType: 'image/png', … });
 * // '![chart.png](/v1/files/file-…/content)'
 */
export function fileLink(file: Pick<RunFile, 'id' | 'name' | 'mediaType'>): string {
  const link = `[${file.name}](${runFileContentPath(file.id)})`;
  return isInlineImage(file.mediaType) ? `!${link}` : link;
}

/**
 * The `Files` section that ends an answer: every file the steps made and the run keeps, in step
 * order, one per line; empty when there is none. Appended by the composer, never written by a
 * model, so every link points at a file that exists.
 *
 * @example
 * filesSection([{ files: [chart] }]); // 'Files\n![chart.png](/v1/files/file-…/content)'
 */
export function filesSection(steps: readonly { files?: readonly RunFile[] | undefined }[]): string {
  const files = steps.flatMap((step) => step.files ?? []);
  if (files.length === 0) return '';
  return `Files\n${files.map((file) => fileLink(file)).join('\n')}`;
}

/**
 * The line under a table read from a CSV/TSV file the run keeps: `full file: [name](link)`;
 * empty when the table's file is not among the step's kept files.
 */
export function fullFileLine(table: StepTable, files: readonly RunFile[] | undefined): string {
  if (table.file === undefined || files === undefined) return '';
  const name = cleanRunFileName(table.file, table.file);
  const file = files.find((entry) => entry.name === name && !isInlineImage(entry.mediaType));
  return file === undefined ? '' : `full file: ${fileLink(file)}`;
}
