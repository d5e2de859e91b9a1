import { useState } from 'preact/hooks';
import { api, signIn, signOutReason } from '../api';
import { ErrorNote } from '../components/error-note';
import { useAction } from '../hooks';

/**
 * Sign in with an API key (`GATEWAY_API_KEYS`). The key is checked against `GET /v1/models`, then
 * kept in this tab's `sessionStorage` only. The form is built by script and never submitted, so the
 * key cannot end up in a URL.
 */
export function SignInPage() {
  const [key, setKey] = useState('');
  const action = useAction();

  const submit = async (event: Event): Promise<void> => {
    event.preventDefault();
    const trimmed = key.trim();
    if (trimmed === '') {
      action.setError('Enter an API key.');
      return;
    }
    if (await action.run(() => api('/models', { key: trimmed }))) {
      setKey('');
      signIn(trimmed);
    }
  };
  const error = action.error ?? signOutReason.value;

  return (
    <main id="main" class="container sign-in" tabIndex={-1}>
      <article>
        <header>
          <h1>A2A Fleet console</h1>
          <p>Approve what agents want to do, follow runs, manage documents and memory.</p>
        </header>
        <form onSubmit={(event) => void submit(event)} aria-describedby="key-help">
          <label for="api-key">API key</label>
          <input
            id="api-key"
            name="api-key"
            type="password"
            autocomplete="off"
            spellcheck={false}
            value={key}
            onInput={(event) => setKey(event.currentTarget.value)}
            aria-invalid={error === undefined ? undefined : true}
            required
          />
          <small id="key-help">
            A key from the gateway's <code>GATEWAY_API_KEYS</code>. It stays in this tab only and is
            forgotten when the tab closes.
          </small>
          <ErrorNote message={error} />
          <button type="submit" aria-busy={action.busy} disabled={action.busy}>
            {action.busy ? 'Checking the key…' : 'Sign in'}
          </button>
        </form>
      </article>
    </main>
  );
}
