/** The account's inboxes: create one, copy an address, delete one (after a confirmation). */
import { useCallback, useEffect, useState } from 'preact/hooks';
import type { Inbox } from '../../../client';
import { apiClient } from '../api';
import { PAGE, takeOpening } from '../opening';
import { hrefOf } from '../router';
import { ConfirmDialog, TopBar, useFail, useHeadingFocus, type Session } from '../shell';
import { CopyButton, ErrorBox, forgetSeen, timeLeft, useNow } from '../ui';

const TTL_CHOICES = [
  { seconds: 600, label: '10 minutes' },
  { seconds: 3600, label: '1 hour' },
  { seconds: 86_400, label: '1 day' },
  { seconds: 604_800, label: '7 days' },
];

export function InboxesScreen({ session }: { session: Session }) {
  const [inboxes, setInboxes] = useState<Inbox[] | null>(null);
  const [cursor, setCursor] = useState<string | undefined>();
  const [domains, setDomains] = useState<string[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [status, setStatus] = useState('');
  const [domain, setDomain] = useState('');
  const [username, setUsername] = useState('');
  const [ttl, setTtl] = useState(3600);
  const [deleting, setDeleting] = useState<Inbox | null>(null);
  const now = useNow(15_000);
  const heading = useHeadingFocus();
  const api = apiClient(session.apiKey);

  const fail = useFail(session, setError);

  const load = useCallback(
    async (after?: string, early?: ReturnType<typeof takeOpening>) => {
      try {
        const page = await (early?.inboxes ?? apiClient(session.apiKey).listInboxes({ limit: PAGE, cursor: after }));
        setInboxes((shown) => (after ? [...(shown ?? []), ...page.inboxes] : page.inboxes));
        setCursor(page.next_cursor);
      } catch (e) {
        fail(e);
      }
    },
    [session, fail],
  );

  useEffect(() => {
    const early = takeOpening(session.apiKey);
    void load(undefined, early);
    (early?.domains ?? apiClient(session.apiKey).listDomains()).then((d) => setDomains(d.domains), fail);
  }, [load, session, fail]);

  const create = async (event: Event) => {
    event.preventDefault();
    setError(null);
    try {
      const created = await api.createInbox({ ...(domain ? { domain } : {}), ...(username.trim() ? { username: username.trim() } : {}), ttl });
      setUsername('');
      setStatus(`Created ${created.email}`);
      await load();
    } catch (e) {
      fail(e);
    }
  };

  const remove = async (inbox: Inbox) => {
    setDeleting(null);
    try {
      await api.deleteInbox(inbox.id);
      forgetSeen(inbox.id);
      setInboxes((shown) => (shown ?? []).filter((i) => i.id !== inbox.id));
      setStatus(`Deleted ${inbox.email}`);
    } catch (e) {
      fail(e);
    }
  };

  return (
    <>
      <TopBar session={session} />
      <main>
        <h1 tabIndex={-1} ref={heading}>
          Inboxes
        </h1>
        <form class="create" onSubmit={create} aria-labelledby="create-heading">
          <h2 id="create-heading">New inbox</h2>
          <div class="fields">
            <div>
              <label for="new-username">Username (optional)</label>
              <input id="new-username" value={username} autoComplete="off" spellcheck={false} placeholder="random" onInput={(e) => setUsername(e.currentTarget.value)} />
            </div>
            <div>
              <label for="new-domain">Domain</label>
              <select id="new-domain" value={domain} onChange={(e) => setDomain(e.currentTarget.value)}>
                {domains.map((d, i) => (
                  <option value={i === 0 ? '' : d}>{d}</option>
                ))}
              </select>
            </div>
            <div>
              <label for="new-ttl">Lifetime</label>
              <select id="new-ttl" value={String(ttl)} onChange={(e) => setTtl(Number(e.currentTarget.value))}>
                {TTL_CHOICES.map((c) => (
                  <option value={String(c.seconds)}>{c.label}</option>
                ))}
              </select>
            </div>
          </div>
          <button type="submit">Create inbox</button>
        </form>
        <ErrorBox message={error} />
        <p class="sr-only" role="status">
          {status}
        </p>
        <h2>Your inboxes</h2>
        {inboxes === null ? (
          <p aria-live="polite">Loading…</p>
        ) : inboxes.length === 0 ? (
          <p>No inboxes yet.</p>
        ) : (
          <ul class="list" aria-label="Your inboxes">
            {inboxes.map((inbox) => (
              <li key={inbox.id} class={inbox.status === 'expired' ? 'expired' : ''}>
                <div class="main">
                  <a href={hrefOf({ name: 'inbox', inboxId: inbox.id })} class="address">
                    {inbox.email}
                  </a>
                  <span class="meta">
                    {inbox.message_count} message{inbox.message_count === 1 ? '' : 's'} · {inbox.status === 'expired' ? 'expired' : timeLeft(inbox.expires_at, now)}
                  </span>
                </div>
                <div class="actions">
                  <CopyButton text={inbox.email} label={`Copy address ${inbox.email}`} />
                  <button type="button" class="danger" aria-label={`Delete inbox ${inbox.email}`} onClick={() => setDeleting(inbox)}>
                    Delete
                  </button>
                </div>
              </li>
            ))}
          </ul>
        )}
        {cursor && (
          <button type="button" onClick={() => load(cursor)}>
            Load more inboxes
          </button>
        )}
        {deleting && (
          <ConfirmDialog text={`Delete ${deleting.email} and all its messages? This cannot be undone.`} onConfirm={() => remove(deleting)} onCancel={() => setDeleting(null)} />
        )}
      </main>
    </>
  );
}

