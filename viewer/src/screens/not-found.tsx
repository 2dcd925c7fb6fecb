import { hrefOf } from '../router';
import { TopBar, useHeadingFocus, type Session } from '../shell';

/** A link the viewer cannot read (a malformed percent-encoding): said so, with the way back. */
export function NotFoundScreen({ session }: { session: Session }) {
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

