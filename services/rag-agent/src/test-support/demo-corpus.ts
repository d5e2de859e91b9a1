import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { parseJson } from '@fleet/errors';
import type { DocumentUpload } from '../documents';

/** The demo corpus: documents about the fictional Kestrel Analytics and its Beacon product. */
export const DEMO_CORPUS_DIR = path.resolve(__dirname, '..', '..', 'demo-corpus');

/** One labelled question of `demo-corpus/questions.json`. */
export const demoQuestionSchema = z.object({
  id: z.string(),
  question: z.string(),
  /** The document that holds the answer. */
  filename: z.string(),
  /** A phrase a correct answer contains (case-insensitive). */
  mustContain: z.string(),
});
export type DemoQuestion = z.infer<typeof demoQuestionSchema>;

const MEDIA_TYPES: Readonly<Record<string, string>> = {
  '.pdf': 'application/pdf',
  '.docx': 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  '.xlsx': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  '.csv': 'text/csv',
  '.txt': 'text/plain',
  '.md': 'text/markdown',
  '.html': 'text/html',
};

/** The media type of a demo file, by its extension. */
export function mediaTypeOf(filename: string): string | undefined {
  return MEDIA_TYPES[path.extname(filename).toLowerCase()];
}

/** The corpus's documents (every file of a supported type; `questions.json` is not one). */
export async function loadDemoDocuments(): Promise<DocumentUpload[]> {
  const names = (await readdir(DEMO_CORPUS_DIR)).filter((name) => mediaTypeOf(name) !== undefined);
  return Promise.all(
    names.sort().map(async (filename) => {
      const bytes = await readFile(path.join(DEMO_CORPUS_DIR, filename));
      const mediaType = mediaTypeOf(filename);
      return {
        filename,
        bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength),
        ...(mediaType === undefined ? {} : { mediaType }),
      };
    }),
  );
}

/** The labelled questions. */
export async function loadDemoQuestions(): Promise<DemoQuestion[]> {
  const text = await readFile(path.join(DEMO_CORPUS_DIR, 'questions.json'), 'utf8');
  return parseJson({ text, schema: z.array(demoQuestionSchema), subject: 'questions.json' });
}
