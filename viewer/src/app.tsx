/**
 * The TempMail web viewer: a person's window on the API, for the moment a test fails on an e-mail. Four screens
 * (key, inboxes, an inbox's messages, a message), each a hash route so that links and back/forward work. It talks
 * to the API alone, with the key from sessionStorage; message HTML is shown only inside a sandboxed frame
 * (message-frame.ts).
 */
import { render, type ComponentChildren } from 'preact';
import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { Inbox, Message, MessageSummary } from '../../client';
import { matches, messageFilter, searchFields } from '../../lambdas/core/search';
import { MESSAGE_FRAME_SANDBOX } from '../../lambdas/contract/viewer-policy';
import { apiClient, describeError, forgetKey, isAbort, isUnauthorized, storedKey, storeKey, TempMailApiError } from './api';
import { frameDocument, hasRemoteImages } from './message-frame';
import { headersOf, type Header } from './raw';
import { hrefOf, parseRoute, useRoute } from './router';
import { CopyButton, ErrorBox, formatSize, formatTime, forgetSeen, isSeen, markSeen, timeLeft, useNow } from './ui';
import './app.css';

const PAGE = 50;
const TTL_CHOICES = [
  { seconds: 600, label: '10 minutes' },
  { seconds: 3600, label: '1 hour' },
  { seconds: 86_400, label: '1 day' },
  { seconds: 604_800, label: '7 days' },
];

/**
 * The first inbox page and the domains, asked for as soon as the script runs when the page opens on the inbox
 * list with a key already typed: the screen takes them instead of asking after its first render.
 */
const opening = (() => {
  const key = storedKey();
  if (!key || parseRoute(location.hash).name !== 'inboxes') return null;
  const api = apiClient(key);
  const settle = <T,>(p: Promise<T>) => (p.catch(() => undefined), p);
  return { key, inboxes: settle(api.listInboxes({ limit: PAGE })), domains: settle(api.listDomains()) };
})();
let openingUsed = false;

/** The opening requests, once, for this key; later loads ask anew. */
function takeOpening(key: string) {
  if (openingUsed || !opening || opening.key !== key) return null;
  openingUsed = true;
  return opening;
}

/** What every screen gets: the key, and what to do when the API refuses it. */
interface Session {
  apiKey: string;
  signOut: (message?: string) => void;
}

/** Moves focus to the screen's heading when it opens, so that a screen reader announces the new screen. */
function useHeadingFocus() {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  return heading;
}

function KeyScreen({ onKey, notice }: { onKey: (key: string, remember: boolean) => void; notice: string | null }) {
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

function TopBar({ session, children }: { session: Session; children?: ComponentChildren }) {
  return (
    <header class="top">
      <nav aria-label="Breadcrumb">
        <a href="#/">Inboxes</a>
        {children}
      </nav>
      <button type="button" class="quiet" onClick={() => session.signOut()}>
        Sign out
      </button>
    </header>
  );
}

function ConfirmDialog({ text, onConfirm, onCancel }: { text: string; onConfirm: () => void; onCancel: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    dialog.current?.showModal();
  }, []);
  return (
    <dialog ref={dialog} aria-labelledby="confirm-text" onCancel={onCancel} onClose={onCancel}>
      <p id="confirm-text">{text}</p>
      <div class="row">
        <button type="button" class="danger" onClick={onConfirm}>
          Delete
        </button>
        <button type="button" autoFocus onClick={onCancel}>
          Cancel
        </button>
      </div>
    </dialog>
  );
}

/** A link the viewer cannot read (a malformed percent-encoding): said so, with the way back. */
function NotFoundScreen({ session }: { session: Session }) {
  const heading = useHeadingFocus();
  return (
    <>
      <TopBar session={session} />
      <main>
        <h1 tabIndex={-1} ref={heading}>
          Not found
        </h1>
        <p>This link does not lead to an inbox or a message: it may have been cut or mistyped.</p>
        <p>
          <a href={hrefOf({ name: 'inboxes' })}>Back to your inboxes</a>
        </p>
      </main>
    </>
  );
}

function InboxesScreen({ session }: { session: Session }) {
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

  const fail = useCallback((e: unknown) => (isUnauthorized(e) ? session.signOut(describeError(e)) : setError(describeError(e))), [session]);

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

function MessagesScreen({ session, inboxId }: { session: Session; inboxId: string }) {
  const [inbox, setInbox] = useState<Inbox | null>(null);
  const [messages, setMessages] = useState<MessageSummary[] | null>(null);
  const [cursor, setCursor] = useState<string | undefined>();
  const [query, setQuery] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [announce, setAnnounce] = useState('');
  const [, setSeenTick] = useState(0);
  const newest = useRef<string | undefined>(undefined);
  const queryRef = useRef('');
  const now = useNow(15_000);
  const heading = useHeadingFocus();

  const fail = useCallback((e: unknown) => (isUnauthorized(e) ? session.signOut(describeError(e)) : setError(describeError(e))), [session]);

  /** A page of the list; a filtered page may be empty with more to come, which is followed a few times. */
  const load = useCallback(
    async (q: string, after?: string) => {
      const api = apiClient(session.apiKey);
      try {
        let page = await api.listMessages(inboxId, { limit: PAGE, cursor: after, ...(q ? { q } : {}) });
        const found = [...page.messages];
        for (let follow = 0; follow < 5 && found.length < PAGE && page.next_cursor; follow++) {
          page = await api.listMessages(inboxId, { limit: PAGE, cursor: page.next_cursor, ...(q ? { q } : {}) });
          found.push(...page.messages);
        }
        if (q !== queryRef.current) return; // a newer search is under way
        if (!after && !q && found[0]) newest.current = found[0].id;
        setMessages((shown) => (after ? [...(shown ?? []), ...found] : found));
        setCursor(page.next_cursor);
      } catch (e) {
        fail(e);
      }
    },
    [session, inboxId, fail],
  );

  useEffect(() => {
    apiClient(session.apiKey).getInbox(inboxId).then(setInbox, fail);
  }, [session, inboxId, fail]);

  // The list, then the live wait for newer mail: one long-poll at a time, cancelled when the screen closes.
  useEffect(() => {
    const stop = new AbortController();
    (async () => {
      await load('');
      while (!stop.signal.aborted) {
        try {
          const result = await apiClient(session.apiKey, stop.signal).waitForMessage(inboxId, { timeout: 20, ...(newest.current ? { after: newest.current } : {}) });
          if (!result.message) continue;
          const m = result.message;
          newest.current = m.id;
          setInbox((i) => (i ? { ...i, message_count: i.message_count + 1 } : i));
          setAnnounce(`New message from ${m.from_name ?? m.from}: ${m.subject}`);
          if (matches(searchFields(m), messageFilter({ q: queryRef.current }))) {
            const summary: MessageSummary = { id: m.id, from: m.from, from_name: m.from_name, subject: m.subject, received_at: m.received_at, size: m.size };
            setMessages((shown) => (shown?.some((s) => s.id === m.id) ? shown : [summary, ...(shown ?? [])]));
          }
        } catch (e) {
          if (stop.signal.aborted || isAbort(e)) return;
          if (e instanceof TempMailApiError && e.status !== 429 && e.status < 500) return fail(e);
          await new Promise((r) => setTimeout(r, 2000));
        }
      }
    })();
    return () => stop.abort();
  }, [session, inboxId, load, fail]);

  // Search as one types, once typing pauses (the first list is loaded above).
  const typed = useRef(false);
  useEffect(() => {
    queryRef.current = query;
    if (!typed.current) {
      typed.current = true;
      return;
    }
    const timer = setTimeout(() => void load(query), 250);
    return () => clearTimeout(timer);
  }, [query, load]);

  // Coming back from a message: its unread mark is gone.
  useEffect(() => {
    const refresh = () => setSeenTick((n) => n + 1);
    addEventListener('focus', refresh);
    return () => removeEventListener('focus', refresh);
  }, []);

  return (
    <>
      <TopBar session={session}>
        <span aria-hidden="true"> / </span>
        <a href={hrefOf({ name: 'inbox', inboxId })} aria-current="page">
          {inbox?.email ?? inboxId}
        </a>
      </TopBar>
      <main>
        <h1 tabIndex={-1} ref={heading} class="address">
          {inbox?.email ?? 'Inbox'}
        </h1>
        {inbox && (
          <p class="meta row">
            <CopyButton text={inbox.email} label={`Copy address ${inbox.email}`} />
            <span>
              {inbox.message_count} message{inbox.message_count === 1 ? '' : 's'} · {timeLeft(inbox.expires_at, now)} · new mail appears here by itself
            </span>
          </p>
        )}
        <ErrorBox message={error} />
        <p class="sr-only" aria-live="polite">
          {announce}
        </p>
        <div class="search" role="search">
          <label for="search">Search messages</label>
          <input id="search" type="search" value={query} placeholder="subject, sender or text" onInput={(e) => setQuery(e.currentTarget.value)} />
        </div>
        {messages === null ? (
          <p aria-live="polite">Loading…</p>
        ) : messages.length === 0 ? (
          <p>{query ? 'No message matches.' : 'No messages yet. Mail sent to this address appears here.'}</p>
        ) : (
          <ul class="list messages" aria-label="Messages">
            {messages.map((m) => {
              const unread = !isSeen(inboxId, m.id);
              return (
                <li key={m.id} class={unread ? 'unread' : ''}>
                  <a href={hrefOf({ name: 'message', inboxId, messageId: m.id })} class="main">
                    <span class="from">
                      {unread && <span class="dot" aria-label="unread" role="img" />}
                      {m.from_name ? `${m.from_name} <${m.from}>` : m.from}
                    </span>
                    <span class="subject">{m.subject || '(no subject)'}</span>
                    <span class="meta">{formatTime(m.received_at)}</span>
                  </a>
                </li>
              );
            })}
          </ul>
        )}
        {cursor && (
          <button type="button" onClick={() => load(query, cursor)}>
            Load more messages
          </button>
        )}
      </main>
    </>
  );
}

type Tab = 'html' | 'text' | 'headers' | 'raw';
const TABS: { id: Tab; label: string }[] = [
  { id: 'html', label: 'HTML' },
  { id: 'text', label: 'Text' },
  { id: 'headers', label: 'Headers' },
  { id: 'raw', label: 'Raw' },
];

function MessageScreen({ session, inboxId, messageId }: { session: Session; inboxId: string; messageId: string }) {
  const [message, setMessage] = useState<Message | null>(null);
  const [raw, setRaw] = useState<{ text: string; url: string } | null>(null);
  const [tab, setTab] = useState<Tab>('html');
  const [remoteImages, setRemoteImages] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const heading = useHeadingFocus();
  const tabRefs = useRef<Record<Tab, HTMLButtonElement | null>>({ html: null, text: null, headers: null, raw: null });

  const fail = useCallback((e: unknown) => (isUnauthorized(e) ? session.signOut(describeError(e)) : setError(describeError(e))), [session]);

  useEffect(() => {
    apiClient(session.apiKey)
      .getMessage(inboxId, messageId)
      .then((m) => {
        setMessage(m);
        if (!m.html) setTab('text');
        markSeen(inboxId, m.id);
      }, fail);
  }, [session, inboxId, messageId, fail]);

  const given = (message as (Message & { headers?: Header[] }) | null)?.headers;
  const needRaw = tab === 'raw' || (tab === 'headers' && !given);
  useEffect(() => {
    if (!needRaw || raw) return;
    apiClient(session.apiKey)
      .getRawMessage(inboxId, messageId)
      .then((bytes) => setRaw({ text: new TextDecoder().decode(bytes), url: URL.createObjectURL(new Blob([bytes as Uint8Array<ArrayBuffer>], { type: 'message/rfc822' })) }), fail);
  }, [needRaw, raw, session, inboxId, messageId, fail]);
  useEffect(() => () => raw && URL.revokeObjectURL(raw.url), [raw]);

  const onTabKey = (event: KeyboardEvent) => {
    const i = TABS.findIndex((t) => t.id === tab);
    const next = event.key === 'ArrowRight' ? (i + 1) % TABS.length : event.key === 'ArrowLeft' ? (i + TABS.length - 1) % TABS.length : event.key === 'Home' ? 0 : event.key === 'End' ? TABS.length - 1 : -1;
    if (next < 0) return;
    event.preventDefault();
    setTab(TABS[next].id);
    tabRefs.current[TABS[next].id]?.focus();
  };

  const headers = given ?? (raw ? headersOf(raw.text) : null);

  return (
    <>
      <TopBar session={session}>
        <span aria-hidden="true"> / </span>
        <a href={hrefOf({ name: 'inbox', inboxId })}>{message?.to ?? 'Inbox'}</a>
        <span aria-hidden="true"> / </span>
        <a href={hrefOf({ name: 'message', inboxId, messageId })} aria-current="page">
          Message
        </a>
      </TopBar>
      <main>
        <ErrorBox message={error} />
        {!message ? (
          !error && <p aria-live="polite">Loading…</p>
        ) : (
          <article aria-labelledby="subject">
            <h1 id="subject" tabIndex={-1} ref={heading}>
              {message.subject || '(no subject)'}
            </h1>
            <dl class="facts">
              <dt>From</dt>
              <dd>{message.from_name ? `${message.from_name} <${message.from}>` : message.from}</dd>
              <dt>To</dt>
              <dd>{message.to}</dd>
              <dt>Received</dt>
              <dd>{formatTime(message.received_at)}</dd>
              <dt>Size</dt>
              <dd>{formatSize(message.size)}</dd>
            </dl>
            <ul class="verdicts" aria-label="Authentication verdicts">
              {(Object.entries(message.auth) as [string, string][]).map(([check, verdict]) => (
                <li class={`verdict ${verdict.toLowerCase()}`}>
                  {check.toUpperCase()}: {verdict}
                </li>
              ))}
            </ul>
            {message.codes.length > 0 && (
              <section aria-labelledby="codes-heading">
                <h2 id="codes-heading">Codes</h2>
                <ul class="chips">
                  {message.codes.map((code) => (
                    <li>
                      <code>{code}</code> <CopyButton text={code} label={`Copy code ${code}`} />
                    </li>
                  ))}
                </ul>
              </section>
            )}
            {message.links.length > 0 && (
              <section aria-labelledby="links-heading">
                <h2 id="links-heading">Links</h2>
                <ul class="links">
                  {message.links.map((link) => (
                    <li>
                      <a href={link} target="_blank" rel="noopener noreferrer">
                        {link}
                      </a>{' '}
                      <CopyButton text={link} label={`Copy link ${link}`} />
                    </li>
                  ))}
                </ul>
              </section>
            )}
            {message.attachments.length > 0 && (
              <section aria-labelledby="attachments-heading">
                <h2 id="attachments-heading">Attachments</h2>
                <ul class="links">
                  {message.attachments.map((a) => (
                    <li>
                      {a.download_url ? (
                        <a href={a.download_url} download={a.filename ?? a.id} rel="noopener noreferrer">
                          {a.filename ?? a.id}
                        </a>
                      ) : (
                        <span title="failed the virus scan: not served">{a.filename ?? a.id} (not served: failed the virus scan)</span>
                      )}{' '}
                      <span class="meta">
                        {a.content_type}, {formatSize(a.size)}
                      </span>
                    </li>
                  ))}
                </ul>
              </section>
            )}
            <div role="tablist" aria-label="Message views" class="tabs" onKeyDown={onTabKey}>
              {TABS.map((t) => (
                <button
                  type="button"
                  role="tab"
                  id={`tab-${t.id}`}
                  aria-selected={tab === t.id}
                  aria-controls={`panel-${t.id}`}
                  tabIndex={tab === t.id ? 0 : -1}
                  ref={(el) => {
                    tabRefs.current[t.id] = el;
                  }}
                  onClick={() => setTab(t.id)}
                >
                  {t.label}
                </button>
              ))}
            </div>
            <section role="tabpanel" id={`panel-${tab}`} aria-labelledby={`tab-${tab}`} class="panel">
              {tab === 'html' &&
                (message.html ? (
                  <>
                    <div class="row remote">
                      <button type="button" aria-pressed={remoteImages} onClick={() => setRemoteImages(!remoteImages)}>
                        {remoteImages ? 'Block remote images' : 'Load remote images'}
                      </button>
                      <span class="meta">
                        {remoteImages
                          ? 'Remote images of this message are loaded: their senders can see that you opened it.'
                          : hasRemoteImages(message.html)
                            ? 'Remote images are blocked.'
                            : 'Remote content is blocked.'}
                      </span>
                    </div>
                    <iframe
                      key={remoteImages ? 'remote' : 'blocked'}
                      title="Message HTML"
                      sandbox={MESSAGE_FRAME_SANDBOX}
                      referrerpolicy="no-referrer"
                      srcdoc={frameDocument(message.html, { remoteImages, parts: message.attachments })}
                    />
                  </>
                ) : (
                  <p>This message has no HTML part.</p>
                ))}
              {tab === 'text' && (message.text ? <pre class="body">{message.text}</pre> : <p>This message has no text part.</p>)}
              {tab === 'headers' &&
                (headers ? (
                  <table class="headers">
                    <caption class="sr-only">Message headers{given ? '' : ', as written in the raw source'}</caption>
                    <thead>
                      <tr>
                        <th scope="col">Name</th>
                        <th scope="col">Value</th>
                      </tr>
                    </thead>
                    <tbody>
                      {headers.map((h) => (
                        <tr>
                          <th scope="row">{h.name}</th>
                          <td>{h.value}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                ) : (
                  <p aria-live="polite">Loading…</p>
                ))}
              {tab === 'raw' &&
                (raw ? (
                  <>
                    <p>
                      <a href={raw.url} download={`${message.id}.eml`}>
                        Download .eml
                      </a>
                    </p>
                    <pre class="body raw">{raw.text}</pre>
                  </>
                ) : (
                  <p aria-live="polite">Loading…</p>
                ))}
            </section>
          </article>
        )}
      </main>
    </>
  );
}

function App() {
  const [apiKey, setApiKey] = useState<string | null>(storedKey());
  const [notice, setNotice] = useState<string | null>(null);
  const route = useRoute();
  // One session object per key: the screens' effects depend on it.
  const session: Session | null = useMemo(
    () =>
      apiKey
        ? {
            apiKey,
            signOut: (message?: string) => {
              forgetKey();
              setNotice(message ?? null);
              setApiKey(null);
            },
          }
        : null,
    [apiKey],
  );
  if (!session) {
    return (
      <KeyScreen
        notice={notice}
        onKey={(key, remember) => {
          storeKey(key, remember);
          setNotice(null);
          setApiKey(key);
        }}
      />
    );
  }
  if (route.name === 'not-found') return <NotFoundScreen session={session} />;
  if (route.name === 'message') return <MessageScreen key={`${route.inboxId}/${route.messageId}`} session={session} inboxId={route.inboxId} messageId={route.messageId} />;
  if (route.name === 'inbox') return <MessagesScreen key={route.inboxId} session={session} inboxId={route.inboxId} />;
  return <InboxesScreen session={session} />;
}

render(<App />, document.getElementById('app')!);
