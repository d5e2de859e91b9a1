import { useState } from 'preact/hooks';
import { api, type MemoryEntry, type MemoryView } from '../api';
import { ConfirmButton } from '../components/confirm-button';
import { ErrorNote } from '../components/error-note';
import { formatTime } from '../format';
import { usePolling } from '../hooks';

const KEY_WORDS: Record<string, string> = {
  name: 'Name',
  company: 'Company',
  jobTitle: 'Job title',
  projects: 'Projects',
  tone: 'Tone',
  detailLevel: 'Detail',
  language: 'Language',
};

/** The entries that hold a value. */
function known(
  entries: Record<string, MemoryEntry | undefined> | undefined,
): [string, MemoryEntry][] {
  return Object.entries(entries ?? {}).flatMap(([key, entry]) =>
    entry === undefined ? [] : [[key, entry] as [string, MemoryEntry]],
  );
}

function Entries({ entries, empty }: { entries: [string, MemoryEntry][]; empty: string }) {
  if (entries.length === 0) return <p>{empty}</p>;
  return (
    <dl class="memory-entries">
      {entries.map(([key, entry]) => (
        <div key={key}>
          <dt>{KEY_WORDS[key] ?? key}</dt>
          <dd>
            {Array.isArray(entry.value) ? entry.value.join(', ') : entry.value}{' '}
            <small>
              (learnt {formatTime(entry.updatedAt)}
              {entry.source === 'llm'
                ? ' by the model'
                : entry.source === 'rules'
                  ? ' by rules'
                  : ''}
              )
            </small>
          </dd>
        </div>
      ))}
    </dl>
  );
}

/**
 * What the fleet remembers about a user of this tenant (`X-Fleet-User`; the tenant's default user
 * when left empty), and erasing it.
 */
export function MemoryPage() {
  const [userField, setUserField] = useState('');
  const [user, setUser] = useState('');
  const [notice, setNotice] = useState<string | undefined>(undefined);
  const headers = user === '' ? undefined : { 'X-Fleet-User': user };
  const memory = usePolling(
    (signal) =>
      api<MemoryView>('/memory', { signal, ...(headers === undefined ? {} : { headers }) }),
    { intervalMs: 10_000, key: `memory:${user}` },
  );

  const erase = async (): Promise<void> => {
    const erased = await api<{ user: string }>('/memory', {
      method: 'DELETE',
      ...(headers === undefined ? {} : { headers }),
    });
    setNotice(`Everything remembered about ${erased.user} was erased.`);
    memory.refresh();
  };

  const view = memory.data;
  const facts = known(view?.facts);
  const preferences = known(view?.preferences);
  return (
    <section aria-labelledby="memory-title">
      <hgroup>
        <h1 id="memory-title">Memory</h1>
        <p>
          Facts and preferences the fleet learnt from a user's messages, used to tailor answers.
        </p>
      </hgroup>
      <form
        role="search"
        onSubmit={(event) => {
          event.preventDefault();
          setNotice(undefined);
          setUser(userField.trim());
        }}
      >
        <label for="memory-user">User</label>
        <input
          id="memory-user"
          type="text"
          placeholder="the tenant's default user"
          value={userField}
          aria-describedby="memory-user-help"
          onInput={(event) => setUserField(event.currentTarget.value)}
        />
        <small id="memory-user-help">
          The user id your applications send (the OpenAI <code>user</code> field or{' '}
          <code>X-Fleet-User</code>). Leave empty for the default user.
        </small>
        <button type="submit">Show</button>
      </form>
      <ErrorNote message={memory.error} />
      {view === undefined ? (
        memory.error === undefined ? (
          <p aria-busy="true">Loading…</p>
        ) : null
      ) : (
        <article aria-labelledby="memory-user-title" class="memory">
          <header>
            <h2 id="memory-user-title">{view.user}</h2>
            <small>
              {view.updatedAt === null
                ? 'Nothing is remembered.'
                : `Last learnt ${formatTime(view.updatedAt)}.`}
            </small>
          </header>
          <h3>Facts</h3>
          <Entries entries={facts} empty="No facts." />
          <h3>Preferences</h3>
          <Entries entries={preferences} empty="No preferences." />
          <footer>
            <ConfirmButton
              label="Erase memory…"
              question={`Erase everything remembered about ${view.user}? This cannot be undone.`}
              confirmLabel="Erase now"
              keepLabel="Keep"
              disabled={view.updatedAt === null && facts.length === 0 && preferences.length === 0}
              onConfirm={erase}
            />
            {notice === undefined ? null : (
              <p role="status" class="notice">
                {notice}
              </p>
            )}
          </footer>
        </article>
      )}
    </section>
  );
}
