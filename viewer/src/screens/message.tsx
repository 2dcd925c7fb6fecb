/** One message: its body first (HTML in a sandboxed frame, text, headers, raw, checks), then its details. */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Message } from '../../../client';
import { MESSAGE_FRAME_SANDBOX } from '../../../lambdas/contract/viewer-policy';
import { apiClient } from '../api';
import { frameDocument, hasRemoteImages } from '../message-frame';
import { headersOf, type Header } from '../raw';
import { hrefOf } from '../router';
import { ConfirmDialog, TopBar, useFail, useHeadingFocus, type Session } from '../shell';
import { CopyButton, ErrorBox, formatSize, formatTime, markSeen } from '../ui';
import { ChecksPanel, useChecks } from './checks';

type Tab = 'html' | 'text' | 'headers' | 'raw' | 'checks';
const TABS: { id: Tab; label: string }[] = [
  { id: 'html', label: 'HTML' },
  { id: 'text', label: 'Text' },
  { id: 'headers', label: 'Headers' },
  { id: 'raw', label: 'Raw' },
  { id: 'checks', label: 'Checks' },
];

/** The +tag the mail was delivered for (`+signup` of `name+signup@…`), shown beside the sender; null without one. */
const tagOf = (envelope: { to: string } | null): string | null => /^[^@]*?(\+[^@]*)@/.exec(envelope?.to ?? '')?.[1] ?? null;

export function MessageScreen({ session, inboxId, messageId }: { session: Session; inboxId: string; messageId: string }) {
  const [message, setMessage] = useState<Message | null>(null);
  const [raw, setRaw] = useState<{ text: string; url: string } | null>(null);
  const [tab, setTab] = useState<Tab>('html');
  const [remoteImages, setRemoteImages] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);
  const heading = useHeadingFocus();
  const tabRefs = useRef<Record<Tab, HTMLButtonElement | null>>({ html: null, text: null, headers: null, raw: null, checks: null });

  const fail = useFail(session, setError);
  const checks = useChecks(session, inboxId, messageId, tab === 'checks', fail);

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

  const remove = async () => {
    setConfirming(false);
    try {
      await apiClient(session.apiKey).deleteMessage(inboxId, messageId);
      // The deleted message's page leaves the history: back goes to where the person came from.
      location.replace(hrefOf({ name: 'inbox', inboxId }));
    } catch (e) {
      fail(e);
    }
  };

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
            <details class="header">
              <summary>
                <span>From {message.from_name ? `${message.from_name} <${message.from}>` : message.from}</span>
                {tagOf(message.envelope) && (
                  <span class="meta" title={`Delivered to ${message.envelope!.to}`}>
                    {tagOf(message.envelope)}
                  </span>
                )}
                <span class="meta">{formatTime(message.received_at)} · details</span>
              </summary>

              <dl class="facts">
                <dt>From</dt>
                <dd>{message.from_name ? `${message.from_name} <${message.from}>` : message.from}</dd>
                <dt>To</dt>
                <dd>{message.to}</dd>
                {message.envelope && (
                  <>
                    <dt>Delivered to</dt>
                    <dd>{message.envelope.to}</dd>
                    <dt>Envelope from</dt>
                    <dd>{message.envelope.from || '<> (a bounce)'}</dd>
                  </>
                )}
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
            </details>
            <div class="row actions-line">
              {message.codes.length > 0 && (
                <section aria-labelledby="codes-heading" class="row codes">
                  <h2 id="codes-heading" class="inline">Codes</h2>
                  <ul class="chips">
                    {message.codes.map((code) => (
                      <li>
                        <code>{code}</code> <CopyButton text={code} label={`Copy code ${code}`} />
                      </li>
                    ))}
                  </ul>
                </section>
              )}
              <button type="button" class="danger push-right" onClick={() => setConfirming(true)}>
                Delete message
              </button>
            </div>
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
              {tab === 'checks' && <ChecksPanel state={checks} />}
            </section>
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
                {/* The API lists at most 100 (attachments_truncated): say how many the mail has. */}
                {message.attachments_truncated && (
                  <p class="meta" data-testid="attachments-shown">
                    {message.attachments.length} of {message.attachment_count} attachments
                  </p>
                )}
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
          </article>
        )}
        {confirming && message && (
          <ConfirmDialog text={`Delete the message "${message.subject || '(no subject)'}"? This cannot be undone.`} onConfirm={() => void remove()} onCancel={() => setConfirming(false)} />
        )}
      </main>
    </>
  );
}

