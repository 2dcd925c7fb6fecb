/**
 * The TempMail web viewer: a person's window on the API, for the moment a test fails on an e-mail. Four screens
 * (key, inboxes, an inbox's messages, a message), each a hash route so that links and back/forward work. It talks
 * to the API alone, with the key from sessionStorage (or localStorage, when remembered); message HTML is shown only inside a sandboxed frame
 * (message-frame.ts).
 */
import { render } from 'preact';
import { useMemo, useState } from 'preact/hooks';
import { forgetKey, storedKey, storeKey } from './api';
import { useRoute } from './router';
import type { Session } from './shell';
import { InboxesScreen } from './screens/inboxes';
import { KeyScreen } from './screens/key';
import { MessageScreen } from './screens/message';
import { MessagesScreen } from './screens/messages';
import { NotFoundScreen } from './screens/not-found';
import './app.css';

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
