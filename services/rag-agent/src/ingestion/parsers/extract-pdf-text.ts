import { Worker } from 'node:worker_threads';
import { z } from 'zod';

/** A run of text on a PDF page, in PDF user space (y grows upwards). */
export interface PdfTextItem {
  text: string;
  x: number;
  y: number;
  width: number;
  /** Font size (the text matrix's vertical scale). */
  size: number;
  /** pdf.js saw a line end after this item. */
  eol: boolean;
}

const messageSchema = z.discriminatedUnion('ok', [
  z.object({
    ok: z.literal(true),
    /** Pages in the document; `pages` holds the first of them, up to the limits. */
    numPages: z.number().int().min(0),
    /** True when reading stopped at `maxChars` before `maxPages`. */
    stoppedAtChars: z.boolean(),
    pages: z.array(
      z.array(
        z.object({
          text: z.string(),
          x: z.number(),
          y: z.number(),
          width: z.number(),
          size: z.number(),
          eol: z.boolean(),
        }),
      ),
    ),
  }),
  z.object({ ok: z.literal(false), name: z.string(), message: z.string() }),
]);

/**
 * The worker's script (CommonJS, run with `eval: true`). It reads text items page by page through
 * pdf.js's public API (`getDocument`, `getPage`, `getTextContent`): items keep the positions and
 * font sizes that paragraphs and headings are recovered from. pdf.js ships as ES modules only, so
 * the legacy build (the one for Node) is loaded with a dynamic `import()`, under Node's own
 * module loader.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { pathToFileURL } = require('node:url');
(async () => {
  let task;
  try {
    const { getDocument } = await import(pathToFileURL(workerData.modulePath).href);
    task = getDocument({ data: workerData.bytes, verbosity: 0, isEvalSupported: false });
    const doc = await task.promise;
    const pages = [];
    const last = Math.min(doc.numPages, workerData.maxPages);
    let chars = 0;
    let stoppedAtChars = false;
    for (let number = 1; number <= last; number++) {
      if (chars >= workerData.maxChars) {
        stoppedAtChars = true;
        break;
      }
      const page = await doc.getPage(number);
      const content = await page.getTextContent();
      const items = content.items
        .filter((item) => typeof item.str === 'string')
        .map((item) => ({
          text: item.str,
          x: item.transform[4],
          y: item.transform[5],
          width: item.width,
          size: Math.hypot(item.transform[2], item.transform[3]) || item.height,
          eol: item.hasEOL === true,
        }));
      for (const item of items) chars += item.text.length;
      pages.push(items);
      page.cleanup();
    }
    parentPort.postMessage({ ok: true, numPages: doc.numPages, stoppedAtChars, pages });
  } catch (error) {
    const name = error && typeof error.name === 'string' ? error.name : 'Error';
    parentPort.postMessage({ ok: false, name, message: String(error && error.message) });
  } finally {
    if (task) await task.destroy().catch(() => undefined);
  }
})();
`;

/** pdf.js's legacy build: the one that runs in Node (the modern one targets current browsers). */
const PDFJS_MODULE = 'pdfjs-dist/legacy/build/pdf.mjs';

/** Why text extraction failed. */
export type PdfFailure = 'invalid' | 'password' | 'timeout' | 'too-large' | 'failed';

/** Text extraction failed; `reason` says how, `message` is pdf.js's own words (for logs). */
export class PdfExtractionError extends Error {
  constructor(
    readonly reason: PdfFailure,
    message: string,
  ) {
    super(message);
    this.name = 'PdfExtractionError';
  }
}

/** Options for {@link extractPdfText}. */
export interface ExtractPdfTextOptions {
  bytes: Uint8Array;
  /** Read no page past this one. @default Infinity */
  maxPages?: number;
  /** Stop before the next page once this many characters are read. @default Infinity */
  maxChars?: number;
  /** Give up after this long. @default 60_000 */
  timeoutMs?: number;
  /** Heap cap for the worker thread. @default 1024 */
  maxMemoryMb?: number;
}

/** The text items of a PDF's first pages. */
export interface PdfText {
  /** Text items per page read, from page 1. */
  pages: PdfTextItem[][];
  /** Pages in the document. */
  numPages: number;
  /** True when reading stopped before `maxPages` because `maxChars` were read. */
  stoppedAtChars: boolean;
}

/**
 * Reads the text items of a PDF's pages with pdf.js (`pdfjs-dist`) on a worker thread, up to
 * `maxPages` pages, and no further page once `maxChars` characters are read.
 *
 * The thread keeps a large or hostile PDF from blocking the agent's event loop (pdf.js in Node
 * parses on the calling thread), bounds its memory and time, and runs pdf.js under Node's own
 * module loader: pdf.js is ES modules only and loads its worker half with a dynamic `import()`,
 * which jest's CommonJS runtime cannot do.
 *
 * @throws {@link PdfExtractionError} when pdf.js cannot read the file in time.
 */
export async function extractPdfText({
  bytes,
  maxPages = Number.POSITIVE_INFINITY,
  maxChars = Number.POSITIVE_INFINITY,
  timeoutMs = 60_000,
  maxMemoryMb = 1024,
}: ExtractPdfTextOptions): Promise<PdfText> {
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { bytes, maxPages, maxChars, modulePath: require.resolve(PDFJS_MODULE) },
    resourceLimits: { maxOldGenerationSizeMb: maxMemoryMb },
    stdout: true,
    stderr: true,
  });
  // pdf.js is told to stay quiet; anything it still prints is dropped, not mixed into our logs.
  worker.stdout.resume();
  worker.stderr.resume();
  let timer: NodeJS.Timeout | undefined;
  try {
    const message = await new Promise<unknown>((resolve, reject) => {
      timer = setTimeout(
        () => reject(new PdfExtractionError('timeout', `no result within ${timeoutMs} ms`)),
        timeoutMs,
      );
      worker.once('message', resolve);
      worker.once('error', (error: Error & { code?: string }) => {
        reject(
          error.code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? new PdfExtractionError('too-large', error.message)
            : new PdfExtractionError('failed', error.message),
        );
      });
      worker.once('exit', (code) => {
        reject(new PdfExtractionError('failed', `worker exited (${code}) without a result`));
      });
    });
    const result = messageSchema.parse(message);
    if (result.ok) {
      return {
        pages: result.pages,
        numPages: result.numPages,
        stoppedAtChars: result.stoppedAtChars,
      };
    }
    if (result.name === 'PasswordException')
      throw new PdfExtractionError('password', result.message);
    if (result.name === 'InvalidPDFException' || result.name === 'FormatError') {
      throw new PdfExtractionError('invalid', result.message);
    }
    throw new PdfExtractionError('failed', `${result.name}: ${result.message}`);
  } finally {
    clearTimeout(timer);
    await worker.terminate();
  }
}
