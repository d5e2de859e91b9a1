/**
 * Run files on a page: the session's Files section, the files a live run announces, and the
 * images and downloads an answer points at. Every byte comes through the signed-in key
 * (`app/files.ts`); names, cells and text previews are text nodes; HTML and SVG are never shown.
 */
import { useEffect, useState } from 'preact/hooks';
import { describeError } from '../api';
import {
  dataUrlOf,
  downloadFile,
  fetchFile,
  MAX_INLINE_IMAGE_BYTES,
  MAX_PREVIEW_BYTES,
} from '../files';
import { formatBytes, formatTime } from '../format';
import { delimiterFor, parseDelimited, type DelimitedPreview } from '../../src/files/delimited';
import {
  ACTIVE_TYPES,
  baseMediaType,
  fileContentPath,
  INLINE_IMAGE_TYPES,
  previewKind,
  type FileView,
  type RefusedFile,
} from '../../src/files/file-view';

/** Rows a CSV/TSV preview shows (the header counts as one). */
const PREVIEW_ROWS = 20;
/** Characters a text preview shows. */
const PREVIEW_CHARACTERS = 4000;

type ImageState =
  | { state: 'loading' }
  | { state: 'ready'; src: string }
  | { state: 'not-image' }
  | { state: 'failed'; error: string };

/** A run file's bytes as a `data:` URL when they are an image the console shows inline. */
function useFileImage(fileId: string): ImageState {
  const [image, setImage] = useState<ImageState>({ state: 'loading' });
  useEffect(() => {
    const controller = new AbortController();
    setImage({ state: 'loading' });
    fetchFile(fileId, controller.signal)
      .then(async ({ blob, mediaType }) => {
        if (!INLINE_IMAGE_TYPES.has(mediaType) || blob.size > MAX_INLINE_IMAGE_BYTES) {
          return { state: 'not-image' } as const;
        }
        return { state: 'ready', src: await dataUrlOf(blob, mediaType) } as const;
      })
      .then((next) => {
        if (!controller.signal.aborted) setImage(next);
      })
      .catch((error: unknown) => {
        if (!controller.signal.aborted) setImage({ state: 'failed', error: describeError(error) });
      });
    // Leaving stops the fetch; the data URL goes with the element (there is no object URL to revoke).
    return () => controller.abort();
  }, [fileId]);
  return image;
}

/**
 * A link that downloads a run file under its name, through the key. Its `href` is the file's
 * content path, for what it points at; the click fetches the bytes with the key instead. Without
 * a `name` (an answer's link to a file the page has not listed), the gateway's is used.
 */
export function FileDownload({
  fileId,
  name,
  label,
}: {
  fileId: string;
  name?: string | undefined;
  label?: string;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);
  return (
    <>
      <a
        class="file-download"
        href={fileContentPath(fileId)}
        // Never empty: the router (preact-iso) takes a click on a link without `download` as a
        // page change.
        download={name ?? fileId}
        aria-busy={busy}
        data-file-id={fileId}
        onClick={(event) => {
          event.preventDefault();
          if (busy) return;
          setBusy(true);
          setError(undefined);
          downloadFile(fileId, name)
            .catch((failure: unknown) => setError(describeError(failure)))
            .finally(() => setBusy(false));
        }}
      >
        {label ?? `Download ${name ?? fileId}`}
      </a>
      {error === undefined ? null : (
        <small class="error-note" role="alert">
          {' '}
          {error}
        </small>
      )}
    </>
  );
}

/** A run file shown as an image (an answer's `![alt](/v1/files/…/content)`, a listed PNG). */
export function FileImage({
  fileId,
  alt,
  name,
}: {
  fileId: string;
  alt: string;
  name?: string | undefined;
}) {
  const image = useFileImage(fileId);
  if (image.state === 'ready') {
    return <img class="run-file-image" src={image.src} alt={alt} data-file-id={fileId} />;
  }
  if (image.state === 'loading') {
    return (
      <span class="run-file-image-pending" aria-busy="true">
        {alt === '' ? 'Loading an image…' : `Loading ${alt}…`}
      </span>
    );
  }
  if (image.state === 'not-image') {
    return (
      <FileDownload fileId={fileId} name={name} label={alt === '' ? `Download ${name}` : alt} />
    );
  }
  return (
    <span class="error-note">
      {alt === '' ? 'An image' : alt} could not be shown: {image.error}
    </span>
  );
}

type Loaded<T> =
  { state: 'idle' | 'loading' } | { state: 'ready'; value: T } | { state: 'failed'; error: string };

/**
 * Reads the file's first bytes as text once `open` is true. Closing the preview while it reads
 * stops the read (opening it again reads afresh); a failed read is tried again when it is opened
 * again.
 */
function useFileText(fileId: string, open: boolean): Loaded<{ text: string; whole: boolean }> {
  const [loaded, setLoaded] = useState<Loaded<{ text: string; whole: boolean }>>({ state: 'idle' });
  useEffect(() => {
    if (!open || loaded.state === 'ready' || loaded.state === 'loading') return;
    const controller = new AbortController();
    setLoaded({ state: 'loading' });
    fetchFile(fileId, controller.signal)
      .then(async ({ blob }) => ({
        text: await blob.slice(0, MAX_PREVIEW_BYTES).text(),
        whole: blob.size <= MAX_PREVIEW_BYTES,
      }))
      .then((value) => {
        if (!controller.signal.aborted) setLoaded({ state: 'ready', value });
      })
      .catch((error: unknown) => {
        if (!controller.signal.aborted) setLoaded({ state: 'failed', error: describeError(error) });
      });
    return () => {
      controller.abort();
      setLoaded((current) => (current.state === 'loading' ? { state: 'idle' } : current));
    };
  }, [fileId, open]);
  return loaded;
}

function TablePreview({
  file,
  preview,
  whole,
}: {
  file: FileView;
  preview: DelimitedPreview;
  whole: boolean;
}) {
  const [header, ...rows] = preview.rows;
  const total = `${preview.totalRows} ${preview.totalRows === 1 ? 'row' : 'rows'}${whole ? '' : ` in the first ${formatBytes(MAX_PREVIEW_BYTES)}`}`;
  return (
    <>
      <p>
        <small>
          {preview.rows.length < preview.totalRows
            ? `The first ${preview.rows.length} of ${total} (the header counts as one).`
            : `All ${total}.`}
          {preview.truncated && preview.rows.length >= preview.totalRows
            ? ' Wide rows and long cells are cut.'
            : ''}
        </small>
      </p>
      <div class="table-wrap">
        <table class="file-table">
          <caption>{file.name}</caption>
          {header === undefined ? null : (
            <thead>
              <tr>
                {header.map((cell, index) => (
                  <th scope="col" key={index}>
                    {cell}
                  </th>
                ))}
              </tr>
            </thead>
          )}
          <tbody>
            {rows.map((row, rowIndex) => (
              <tr key={rowIndex}>
                {row.map((cell, index) => (
                  <td key={index} data-label={header?.[index] ?? ''}>
                    {cell}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

/** A CSV/TSV table or a text excerpt, read when the person opens it. */
function LazyPreview({ file, kind }: { file: FileView; kind: 'table' | 'text' }) {
  const [open, setOpen] = useState(false);
  const loaded = useFileText(file.id, open);
  return (
    <details class="file-preview" onToggle={(event) => setOpen(event.currentTarget.open)}>
      <summary>{kind === 'table' ? 'Preview the table' : 'Preview the text'}</summary>
      {loaded.state === 'ready' ? (
        kind === 'table' ? (
          <TablePreview
            file={file}
            whole={loaded.value.whole}
            preview={parseDelimited(loaded.value.text, {
              delimiter: delimiterFor(file.mediaType),
              maxRows: PREVIEW_ROWS,
            })}
          />
        ) : (
          <pre class="preview">
            {loaded.value.text.length > PREVIEW_CHARACTERS || !loaded.value.whole
              ? `${loaded.value.text.slice(0, PREVIEW_CHARACTERS)}\n…`
              : loaded.value.text}
          </pre>
        )
      ) : loaded.state === 'failed' ? (
        <p class="error-note">{loaded.error}</p>
      ) : (
        <p aria-busy="true">Reading the file…</p>
      )}
    </details>
  );
}

function madeBy(file: FileView): string {
  if (file.source === 'attachment') return 'attachment';
  const step = file.nodeId === undefined ? 'a step' : `step ${file.nodeId}`;
  return file.agent === undefined ? step : `${step} (${file.agent})`;
}

/** One run file: what it is, who made it, until when it is kept, its download and preview. */
function RunFileCard({ file }: { file: FileView }) {
  const kind = previewKind(file.mediaType);
  return (
    <article class="run-file" data-file-id={file.id}>
      <header>
        <strong class="run-file-name">{file.name}</strong>
        <small>
          {' '}
          · {baseMediaType(file.mediaType)} · {formatBytes(file.size)} · {madeBy(file)}
          {file.expiresAt === '' ? null : <> · kept until {formatTime(file.expiresAt)}</>}
        </small>
      </header>
      {kind === 'image' ? <FileImage fileId={file.id} alt={file.name} name={file.name} /> : null}
      {kind === 'table' || kind === 'text' ? <LazyPreview file={file} kind={kind} /> : null}
      {ACTIVE_TYPES.has(baseMediaType(file.mediaType)) ? (
        <p>
          <small>
            Download only: HTML and SVG files can carry script, so the console never shows them.
          </small>
        </p>
      ) : null}
      <p>
        <FileDownload fileId={file.id} name={file.name} />
      </p>
    </article>
  );
}

/** Files a step made that the run did not keep, each with its reason. */
export function RefusedFiles({ refused }: { refused: readonly RefusedFile[] }) {
  if (refused.length === 0) return null;
  return (
    <ul class="files-refused">
      {refused.map((file, index) => (
        <li key={`${index}-${file.name}`}>
          {file.name} was not kept
          {file.nodeId === undefined
            ? ''
            : ` (step ${file.nodeId}${file.agent === undefined ? '' : `, ${file.agent}`})`}
          : {file.reason}
        </li>
      ))}
    </ul>
  );
}

/** The Files section of a session or a live run. */
export function FilesSection({
  files,
  refused = [],
  titleId = 'files-title',
}: {
  files: readonly FileView[];
  refused?: readonly RefusedFile[];
  titleId?: string;
}) {
  if (files.length === 0 && refused.length === 0) return null;
  return (
    <section aria-labelledby={titleId} class="run-files">
      <h2 id={titleId}>Files</h2>
      <div aria-live="polite">
        {files.map((file) => (
          <RunFileCard key={file.id} file={file} />
        ))}
      </div>
      <RefusedFiles refused={refused} />
    </section>
  );
}
