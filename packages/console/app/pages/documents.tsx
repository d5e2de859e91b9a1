import { useRef, useState } from 'preact/hooks';
import { api, describeError, uploadDocument, type DocumentView, type ListOf } from '../api';
import { ConfirmButton } from '../components/confirm-button';
import { ErrorNote } from '../components/error-note';
import { formatBytes, formatTime } from '../format';
import { usePolling } from '../hooks';

const ACCEPT = '.pdf,.docx,.csv,.xlsx,.txt,.md,.markdown,.html,.htm';

interface UploadState {
  name: string;
  sent: number;
  total: number;
  /** Sending bytes, then waiting while the RAG agent parses and indexes the file. */
  phase: 'sending' | 'indexing';
}

function DocumentRow({ document, onDeleted }: { document: DocumentView; onDeleted: () => void }) {
  return (
    <tr data-document-id={document.id}>
      <td data-label="File">
        <span class="filename">{document.filename}</span>
        {document.truncated === true ? (
          <small class="warning" title={(document.warnings ?? []).join('\n')}>
            {' '}
            (stored in part)
          </small>
        ) : null}
      </td>
      <td data-label="Type">{document.docType}</td>
      <td data-label="Chunks">{document.chunks}</td>
      <td data-label="Added">{formatTime(document.createdAt)}</td>
      <td data-label="">
        <ConfirmButton
          label="Delete…"
          ariaLabel={`Delete ${document.filename}…`}
          question={`Delete ${document.filename} and its chunks?`}
          confirmLabel={`Delete ${document.filename}`}
          keepLabel="Keep"
          onConfirm={async () => {
            await api(`/documents/${encodeURIComponent(document.id)}`, { method: 'DELETE' });
            onDeleted();
          }}
        />
      </td>
    </tr>
  );
}

/** How far an upload is: sending (with a bar), then indexing. */
function UploadProgress({ upload }: { upload: UploadState }) {
  return (
    <div class="upload-progress">
      <label for="upload-bar">
        {upload.phase === 'sending'
          ? `Sending ${upload.name}: ${formatBytes(upload.sent)} of ${formatBytes(upload.total)}`
          : `Indexing ${upload.name}…`}
      </label>
      {upload.phase === 'sending' ? (
        <progress id="upload-bar" max={Math.max(upload.total, 1)} value={upload.sent} />
      ) : (
        <progress id="upload-bar" />
      )}
    </div>
  );
}

/** The upload form: choose a file, send it with progress, and say what was stored. */
function UploadForm({ onUploaded }: { onUploaded: () => void }) {
  const [upload, setUpload] = useState<UploadState | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [notice, setNotice] = useState<string | undefined>(undefined);
  const input = useRef<HTMLInputElement>(null);

  const send = async (event: Event): Promise<void> => {
    event.preventDefault();
    const file = input.current?.files?.[0];
    if (file === undefined) {
      setError('Choose a file first.');
      return;
    }
    setError(undefined);
    setNotice(undefined);
    setUpload({ name: file.name, sent: 0, total: file.size, phase: 'sending' });
    try {
      const stored = await uploadDocument(file, {
        onProgress: (sent, total) =>
          setUpload({
            name: file.name,
            sent,
            total,
            phase: sent >= total ? 'indexing' : 'sending',
          }),
      });
      setNotice(
        stored.duplicate === true
          ? `${stored.filename} was already stored; nothing changed.`
          : `${stored.filename} is stored: ${stored.chunks} chunks${stored.truncated === true ? ' (only part of it: it was over a limit)' : ''}.`,
      );
      if (input.current !== null) input.current.value = '';
      onUploaded();
    } catch (failure) {
      setError(describeError(failure));
    } finally {
      setUpload(undefined);
    }
  };

  return (
    <form onSubmit={(event) => void send(event)}>
      <label for="document-file">File</label>
      <input id="document-file" type="file" accept={ACCEPT} ref={input} required />
      <button type="submit" disabled={upload !== undefined} aria-busy={upload !== undefined}>
        Upload
      </button>
      {upload === undefined ? null : <UploadProgress upload={upload} />}
      <ErrorNote message={error} />
      {notice === undefined ? null : (
        <p role="status" class="notice">
          {notice}
        </p>
      )}
    </form>
  );
}

/** The tenant's documents, newest first, each with a delete button. */
function DocumentsTable({
  list,
  onDeleted,
}: {
  list: readonly DocumentView[];
  onDeleted: () => void;
}) {
  return (
    <div class="table-wrap">
      <table class="documents-table">
        <caption class="visually-hidden">Your documents, newest first</caption>
        <thead>
          <tr>
            <th scope="col">File</th>
            <th scope="col">Type</th>
            <th scope="col">Chunks</th>
            <th scope="col">Added</th>
            <th scope="col">
              <span class="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {list.map((document) => (
            <DocumentRow key={document.id} document={document} onDeleted={onDeleted} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The tenant's documents (what retrieval searches): upload with progress, list, delete. */
export function DocumentsPage() {
  const documents = usePolling((signal) => api<ListOf<DocumentView>>('/documents', { signal }), {
    intervalMs: 10_000,
    key: 'documents',
  });
  const list = documents.data?.data;
  return (
    <section aria-labelledby="documents-title">
      <hgroup>
        <h1 id="documents-title">Documents</h1>
        <p>
          What the RAG agent searches for your tenant: PDF, DOCX, CSV, XLSX, TXT, Markdown, HTML.
        </p>
      </hgroup>
      <UploadForm onUploaded={documents.refresh} />
      <ErrorNote message={documents.error} />
      {list === undefined ? (
        documents.error === undefined ? (
          <p aria-busy="true">Loading documents…</p>
        ) : null
      ) : list.length === 0 ? (
        <p>No documents yet.</p>
      ) : (
        <DocumentsTable list={list} onDeleted={documents.refresh} />
      )}
    </section>
  );
}
