/**
 * A mail's text or HTML body as a MailParser returns it (core/ports.ts ParsedMail): a string, or held off the
 * caller's thread. The local stack parses a large mail on a worker thread (parse-thread.ts); bringing a 38 MB body
 * back as a string took the one event loop 150–320 ms here, most of it first touches of fresh memory (issue 27
 * item 2). `json`: what a message keeps of the body (its first BODY_KEPT_CHARS characters, core/message.ts) as
 * JSON.stringify writes it, without the quotes, in UTF-8, made on that thread: the message's body object is written
 * from it. `head`: its first EXTRACT_SCAN_CHARS characters (core/extract.ts), all that code and link extraction read.
 * `length`: the whole body's, in UTF-16 units.
 */
export interface HeldText {
  readonly held: true;
  json: Uint8Array;
  head: string;
  length: number;
}

/** A body as a MailParser returns it: a string, or held (a parse on another thread). */
export type MailText = string | HeldText;

export const isHeld = (text: unknown): text is HeldText => typeof text === 'object' && text !== null && (text as HeldText).held === true;

/** The body, or its first EXTRACT_SCAN_CHARS characters when it is held: what extraction reads. */
export const extractable = (text: MailText): string => (typeof text === 'string' ? text : text.head);
