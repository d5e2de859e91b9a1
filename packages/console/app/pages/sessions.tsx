import { api, type ListOf, type SessionSummary } from '../api';
import { ErrorNote } from '../components/error-note';
import { StatusBadge } from '../components/status-badge';
import { formatTime, fromNow } from '../format';
import { usePolling } from '../hooks';

/** How often the list refreshes. */
const REFRESH_MS = 2000;

/** The caller's sessions, newest first, refreshed every two seconds. */
export function SessionsPage() {
  const sessions = usePolling(
    (signal) => api<ListOf<SessionSummary>>('/sessions?limit=100', { signal }),
    { intervalMs: REFRESH_MS, key: 'sessions' },
  );
  const list = sessions.data?.data;
  const waiting = list?.filter(
    (session) =>
      session.pendingApprovals + session.pendingInputs > 0 || session.awaitingReview === true,
  );
  return (
    <section aria-labelledby="sessions-title">
      <hgroup>
        <h1 id="sessions-title">Sessions</h1>
        <p>
          Your tenant's orchestrated runs, newest first.{' '}
          <span aria-live="polite">
            {waiting === undefined || waiting.length === 0
              ? ''
              : `${waiting.length} waiting for you.`}
          </span>
        </p>
      </hgroup>
      <ErrorNote message={sessions.error} />
      {list === undefined ? (
        <p aria-busy="true">Loading sessions…</p>
      ) : list.length === 0 ? (
        <p>
          No sessions yet. <a href="/console/ask">Ask something</a> to start one.
        </p>
      ) : (
        <div class="table-wrap">
          <table class="sessions-table">
            <caption class="visually-hidden">Sessions, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Request</th>
                <th scope="col">State</th>
                <th scope="col">Started</th>
                <th scope="col">Waiting for you</th>
              </tr>
            </thead>
            <tbody>
              {list.map((session) => (
                <tr key={session.id} data-session-id={session.id}>
                  <td data-label="Request">
                    <a href={`/console/sessions/${encodeURIComponent(session.id)}`}>
                      {session.request.length > 140
                        ? `${session.request.slice(0, 140)}…`
                        : session.request || session.id}
                    </a>
                  </td>
                  <td data-label="State">
                    <StatusBadge state={session.status} />
                  </td>
                  <td data-label="Started">
                    <time dateTime={session.createdAt} title={formatTime(session.createdAt)}>
                      {fromNow(session.createdAt)}
                    </time>
                  </td>
                  <td data-label="Waiting for you">{waitingWords(session)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {sessions.updatedAt === undefined ? null : (
        <p>
          <small>Updated {sessions.updatedAt.toLocaleTimeString()}.</small>
        </p>
      )}
    </section>
  );
}

function waitingWords(session: SessionSummary): string {
  const parts: string[] = [];
  if (session.pendingApprovals > 0)
    parts.push(`${session.pendingApprovals} approval${session.pendingApprovals === 1 ? '' : 's'}`);
  if (session.pendingInputs > 0)
    parts.push(`${session.pendingInputs} question${session.pendingInputs === 1 ? '' : 's'}`);
  // `=== true`: a gateway that predates reviews leaves the field out.
  if (session.awaitingReview === true) parts.push('the answer, for review');
  return parts.length === 0 ? '—' : parts.join(', ');
}
