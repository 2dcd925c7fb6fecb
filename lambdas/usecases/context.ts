/**
 * What a use case runs against: storage, mail parsing and webhook delivery behind the ports (core/ports.ts),
 * settings, and a clock. Only types: the composition root (lambdas/app/) is the one place that picks the adapters
 * and builds it, from the one validated config.
 */
import type { Settings } from '../config/app-config';
import type { DeliveryQueue, DomainEvents, HtmlInspector, LinkProber, MailAuthenticator, MailParser, SecretBox, Stores, WebhookSender } from '../core/ports';

/** What webhook delivery runs on besides storage: the secret box, the delivery queue and the HTTP sender. */
export interface WebhookRuntime {
  secrets: SecretBox;
  queue: DeliveryQueue;
  sender: WebhookSender;
}

export interface AppContext {
  stores: Stores;
  settings: Settings;
  now: () => number;
  webhooks: WebhookRuntime;
  /** Set by the local stack (its dispatcher); absent on AWS, where the table's stream carries the same facts. */
  events?: DomainEvents;
}

/**
 * What ingest runs on: the context and the MIME parser. Only the ingest function and the local stack carry the
 * parser (mailparser and html-to-text are a megabyte of an API function's bundle otherwise).
 */
export interface IngestContext extends AppContext {
  mail: MailParser;
}

/**
 * What the mail checks run on besides the context: the authentication verifier (DNS), the HTML inspector and the link
 * prober (outbound HTTP). Only the checks function and the local stack carry them (mailauth and caniemail's data are
 * not in other bundles, and no other function makes requests to URLs found in mail).
 */
export interface ChecksContext extends AppContext {
  checks: {
    authenticator: MailAuthenticator;
    html: HtmlInspector;
    links: LinkProber;
    /** Logs what went wrong without failing the check (the checks cache's failed reads and writes). */
    warn(message: string, fields: Record<string, unknown>): void;
  };
}
