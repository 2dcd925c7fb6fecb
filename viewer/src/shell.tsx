/** What every screen shares: the session, the top bar, the confirmation dialog, focus and error handling. */
import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef } from 'preact/hooks';
import { describeError, isUnauthorized } from './api';

/** What every screen gets: the key, and what to do when the API refuses it. */
export interface Session {
  apiKey: string;
  signOut: (message?: string) => void;
}

/** Moves focus to the screen's heading when it opens, so that a screen reader announces the new screen. */
export function useHeadingFocus() {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  return heading;
}

/** An error for the screen's error box; a refused key signs out with the API's words. */
export function useFail(session: Session, setError: (message: string | null) => void) {
  return useCallback((e: unknown) => (isUnauthorized(e) ? session.signOut(describeError(e)) : setError(describeError(e))), [session, setError]);
}

export function TopBar({ session, children }: { session: Session; children?: ComponentChildren }) {
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

export function ConfirmDialog({ text, onConfirm, onCancel }: { text: string; onConfirm: () => void; onCancel: () => void }) {
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

