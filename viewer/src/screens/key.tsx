/** The first screen: the API key, checked against the API before it is kept. */
import { useState } from 'preact/hooks';
import { apiClient, describeError } from '../api';
import { useHeadingFocus } from '../shell';
import { ErrorBox } from '../ui';

export function KeyScreen({ onKey, notice }: { onKey: (key: string, remember: boolean) => void; notice: string | null }) {
  const [key, setKey] = useState('');
  const [remember, setRemember] = useState(false);
  const [error, setError] = useState<string | null>(notice);
  const [busy, setBusy] = useState(false);
  const heading = useHeadingFocus();
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      // The key is kept only once the API has accepted it.
      await apiClient(key.trim()).listInboxes({ limit: 1 });
      onKey(key.trim(), remember);
    } catch (e) {
      setError(describeError(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="narrow">
      <h1 tabIndex={-1} ref={heading}>
        TempMail
      </h1>
      <p>
        Enter your API key to see your inboxes (locally: the dev key <code>npm start</code> printed, in <code>.tempmail/dev-key</code>). It is kept in
        this browser tab only (sessionStorage), unless you ask this browser to remember it, and sent only to this API.
      </p>
      <form onSubmit={submit}>
        <label for="api-key">API key</label>
        <input id="api-key" type="password" autoComplete="off" spellcheck={false} required value={key} onInput={(e) => setKey(e.currentTarget.value)} />
        <label class="check">
          <input type="checkbox" checked={remember} onChange={(e) => setRemember(e.currentTarget.checked)} /> Remember this key in this browser (localStorage, until you
          sign out), so that links opened in new tabs open without asking
        </label>
        <button type="submit" disabled={busy || !key.trim()}>
          {busy ? 'Checking…' : 'Open'}
        </button>
      </form>
      <ErrorBox message={error} />
    </main>
  );
}

