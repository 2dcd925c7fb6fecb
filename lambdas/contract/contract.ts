/**
 * Each route's request and response schemas, keyed by the route table's names. Handlers validate with these and
 * the OpenAPI document is generated from them.
 */
import type { ZodMiniType as ZodType } from 'zod/mini';
import * as s from './schemas';
import * as w from './wait-schemas';
import * as c from './check-schemas';

export interface RouteContract {
  params?: ZodType;
  query?: ZodType;
  body?: ZodType;
  /** 'redirect': a 302 to a pre-signed S3 URL (large payloads never pass through Lambda and API Gateway). */
  response: ZodType | 'binary' | 'redirect';
  status: number;
  /** A second success: 202 when the work was cut short by the request's time and a repeat goes on (emptyInbox). */
  unfinishedStatus?: 202;
  /** Answers beside the success and the common errors, each with when (the OpenAPI document lists them). */
  otherResponses?: Readonly<Record<number, { description: string; schema?: ZodType }>>;
  auth?: boolean;
}

export const CONTRACT = {
  listInboxes: { query: s.ListInboxesQuery, response: s.InboxList, status: 200 },
  createInbox: { query: s.NoQuery, body: s.CreateInboxBody, response: s.InboxCreated, status: 201 },
  deleteInboxes: { query: s.DeleteInboxesQuery, response: s.GroupDeleted, status: 200, unfinishedStatus: 202 },
  getInbox: { params: s.InboxPath, query: s.NoQuery, response: s.Inbox, status: 200 },
  deleteInbox: { params: s.InboxPath, query: s.NoQuery, response: s.Deleted, status: 200 },
  emptyInbox: { params: s.InboxPath, query: s.NoQuery, response: s.InboxEmptied, status: 200, unfinishedStatus: 202 },
  listMessages: { params: s.InboxPath, query: s.ListMessagesQuery, response: s.MessageList, status: 200 },
  waitForMessage: { params: s.InboxPath, query: s.WaitQuery, response: s.WaitResult, status: 200 },
  waitForMessages: {
    params: s.InboxPath,
    query: s.NoQuery,
    body: w.WaitRequest,
    response: w.WaitMessages,
    status: 200,
    otherResponses: {
      204: { description: 'none: no message matched within the timeout' },
      408: { description: 'the timeout passed before count messages matched: what arrived, and near misses', schema: w.WaitTimedOut },
      409: { description: 'none: a message matched (named); exact: more than count match (all named)', schema: w.WaitConflict },
    },
  },
  getMessage: { params: s.MessagePath, query: s.NoQuery, response: s.Message, status: 200 },
  getMessageSnapshot: { params: s.MessagePath, query: s.NoQuery, response: s.MessageSnapshot, status: 200 },
  deleteMessage: { params: s.MessagePath, query: s.NoQuery, response: s.Deleted, status: 200 },
  getRawMessage: {
    params: s.MessagePath,
    query: s.RawQuery,
    response: 'redirect',
    status: 302,
    otherResponses: { 200: { description: 'as=url: the download link as JSON, not a redirect', schema: s.RawLink } },
  },
  getMessageChecks: { params: s.MessagePath, query: c.ChecksQuery, response: c.MessageChecks, status: 200 },
  listDomains: { query: s.NoQuery, response: s.Domains, status: 200 },
  createWebhook: { query: s.NoQuery, body: s.CreateWebhookBody, response: s.WebhookCreated, status: 201 },
  listWebhooks: { query: s.ListWebhooksQuery, response: s.WebhookList, status: 200 },
  getWebhook: { params: s.WebhookPath, query: s.NoQuery, response: s.Webhook, status: 200 },
  deleteWebhook: { params: s.WebhookPath, query: s.NoQuery, response: s.Deleted, status: 200 },
  testWebhook: { params: s.WebhookPath, query: s.NoQuery, response: s.WebhookTestQueued, status: 202 },
  listWebhookDeliveries: { params: s.WebhookPath, query: s.NoQuery, response: s.WebhookDeliveries, status: 200 },
  getOpenApi: { response: 'binary', status: 200, auth: false },
  getViewer: { query: s.ViewerQuery, response: 'binary', status: 200, auth: false },
  getViewerAsset: { params: s.ViewerPath, query: s.ViewerQuery, response: 'binary', status: 200, auth: false },
} as const satisfies Record<string, RouteContract>;
