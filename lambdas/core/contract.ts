/**
 * Each route's request and response schemas, keyed by the route table's names. Handlers validate with these and
 * the OpenAPI document is generated from them.
 */
import type { ZodMiniType as ZodType } from 'zod/mini';
import * as s from './schemas';

export interface RouteContract {
  params?: ZodType;
  query?: ZodType;
  body?: ZodType;
  response: ZodType | 'binary';
  status: number;
  auth?: boolean;
}

export const CONTRACT = {
  listInboxes: { query: s.ListInboxesQuery, response: s.InboxList, status: 200 },
  createInbox: { query: s.NoQuery, body: s.CreateInboxBody, response: s.InboxCreated, status: 201 },
  getInbox: { params: s.InboxPath, query: s.NoQuery, response: s.Inbox, status: 200 },
  deleteInbox: { params: s.InboxPath, query: s.NoQuery, response: s.Deleted, status: 200 },
  listMessages: { params: s.InboxPath, query: s.ListMessagesQuery, response: s.MessageList, status: 200 },
  waitForMessage: { params: s.InboxPath, query: s.WaitQuery, response: s.WaitResult, status: 200 },
  getMessage: { params: s.MessagePath, query: s.NoQuery, response: s.Message, status: 200 },
  deleteMessage: { params: s.MessagePath, query: s.NoQuery, response: s.Deleted, status: 200 },
  getRawMessage: { params: s.MessagePath, query: s.NoQuery, response: 'binary', status: 200 },
  listDomains: { query: s.NoQuery, response: s.Domains, status: 200 },
  getOpenApi: { response: 'binary', status: 200, auth: false },
  getViewer: { query: s.ViewerQuery, response: 'binary', status: 200, auth: false },
  getViewerAsset: { params: s.ViewerPath, query: s.ViewerQuery, response: 'binary', status: 200, auth: false },
} as const satisfies Record<string, RouteContract>;
