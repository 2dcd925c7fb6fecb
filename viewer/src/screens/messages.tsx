/** An inbox's messages: the list, live through the wait endpoint, with search and unread marks. */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import type { Inbox, MessageSummary } from '../../../client';
import { summaryOf } from '../../../lambdas/core/model';
import { matches, messageFilter, searchFields } from '../../../lambdas/core/search';
import { apiClient, isAbort, TempMailApiError } from '../api';
import { PAGE } from '../opening';
import { hrefOf } from '../router';
import { ConfirmDialog, TopBar, useFail, useHeadingFocus, type Session } from '../shell';
import { CopyButton, ErrorBox, formatTime, isSeen, timeLeft, useNow } from '../ui';

export function MessagesScreen({ session, inboxId }: { session: Session; inboxId: string }) {
  const [inbox, setInbox] = useState<Inbox | null>(null);
  const [messages, setMessages] = useState<MessageSummary[] | null>(null);
  const [cursor, setCursor] = useState<string | undefined>();
  const [query, setQuery] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [announce, setAnnounce] = useState('');
  const [confirming, setConfirming] = useState(false);
  const [, setSeenTick] = useState(0);
  const newest = useRef<string | undefined>(undefined);
  const queryRef = useRef('');
  const now = useNow(15_000);
  const heading = useHeadingFocus();

  const fail = useFail(session, setError);

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
            const summary: MessageSummary = summaryOf(m);
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

  const empty = async () => {
    setConfirming(false);
    try {
      const result = await apiClient(session.apiKey).emptyInbox(inboxId);
      setMessages([]);
      setCursor(undefined);
      setInbox((i) => (i ? { ...i, message_count: 0 } : i));
      setAnnounce(`Deleted ${result.deleted_count} message${result.deleted_count === 1 ? '' : 's'}; the inbox is empty`);
    } catch (e) {
      fail(e);
    }
  };

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
            <button type="button" class="danger" disabled={inbox.message_count === 0 && !messages?.length} onClick={() => setConfirming(true)}>
              Empty inbox
            </button>
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
        {confirming && inbox && (
          <ConfirmDialog text={`Delete every message of ${inbox.email}? The inbox stays. This cannot be undone.`} onConfirm={() => void empty()} onCancel={() => setConfirming(false)} />
        )}
      </main>
    </>
  );
}

