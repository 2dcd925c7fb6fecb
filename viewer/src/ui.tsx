/** Small shared pieces: copy buttons, time left, status messages, the seen-messages record. */
import { useEffect, useState } from 'preact/hooks';

/** Copies with the Clipboard API, or, where a page is not a secure context, through a selected text field. */
export async function copyText(text: string): Promise<void> {
  if (navigator.clipboard && isSecureContext) return navigator.clipboard.writeText(text);
  const field = document.createElement('textarea');
  field.value = text;
  field.setAttribute('readonly', '');
  field.style.position = 'fixed';
  field.style.opacity = '0';
  document.body.append(field);
  field.select();
  const ok = document.execCommand('copy');
  field.remove();
  if (!ok) throw new Error('the browser refused to copy');
}

export function CopyButton({ text, label }: { text: string; label: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  useEffect(() => {
    if (state === 'idle') return;
    const timer = setTimeout(() => setState('idle'), 2000);
    return () => clearTimeout(timer);
  }, [state]);
  return (
    <button
      type="button"
      class="copy"
      aria-label={label}
      onClick={() => copyText(text).then(() => setState('copied'), () => setState('failed'))}
    >
      <span aria-live="polite">{state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed' : 'Copy'}</span>
    </button>
  );
}

/** Re-renders every `ms` milliseconds (for times left). */
export function useNow(ms: number): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(timer);
  }, [ms]);
  return now;
}

export function timeLeft(expiresAt: string, now: number): string {
  const seconds = Math.floor((Date.parse(expiresAt) - now) / 1000);
  if (seconds <= 0) return 'expired';
  const d = Math.floor(seconds / 86_400);
  const h = Math.floor((seconds % 86_400) / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  if (d > 0) return `${d} d ${h} h left`;
  if (h > 0) return `${h} h ${m} min left`;
  if (m > 0) return `${m} min left`;
  return `${seconds} s left`;
}

/** A size as people read it: 9 B, 1.5 KB, 2.3 MB (a 12-byte attachment is not "0.0 KB"). */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

export const formatTime = (iso: string): string => new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });

export function ErrorBox({ message }: { message: string | null }) {
  return message ? (
    <p class="error" role="alert">
      {message}
    </p>
  ) : null;
}

/**
 * Which messages this browser has opened, per inbox, in localStorage (ids only, nothing secret): unread marking is
 * the reader's, not the API's.
 */
const SEEN_SLOT = 'tempmail.seen';
type Seen = Record<string, string[]>;
const readSeen = (): Seen => {
  try {
    return JSON.parse(localStorage.getItem(SEEN_SLOT) ?? '{}') as Seen;
  } catch {
    return {};
  }
};
export const isSeen = (inboxId: string, messageId: string): boolean => (readSeen()[inboxId] ?? []).includes(messageId);
export function markSeen(inboxId: string, messageId: string): void {
  const seen = readSeen();
  const ids = seen[inboxId] ?? [];
  if (ids.includes(messageId)) return;
  // Bounded: the newest 500 per inbox.
  seen[inboxId] = [messageId, ...ids].slice(0, 500);
  localStorage.setItem(SEEN_SLOT, JSON.stringify(seen));
}
export function forgetSeen(inboxId: string): void {
  const seen = readSeen();
  delete seen[inboxId];
  localStorage.setItem(SEEN_SLOT, JSON.stringify(seen));
}
