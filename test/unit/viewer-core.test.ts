/** The domain rules the viewer work added to lambdas/core: message matching, CORS headers and origins, inbox cursors. */
import { corsHeaders, parseCorsOrigin, preflightHeaders } from '../../lambdas/contract/cors';
import { decodeInboxCursor, encodeInboxCursor } from '../../lambdas/core/cursor';
import { matches, messageFilter, searchFields } from '../../lambdas/core/search';
import { messageFrameCsp } from '../../lambdas/contract/viewer-policy';

describe('message filters', () => {
  const message = searchFields({ from: 'billing@acme.example', from_name: 'Acme Billing', subject: 'Invoice 1001', text: 'Your code482913 is here' });

  it('folds terms, ignores empty ones, and filters nothing without terms', () => {
    expect(messageFilter({})).toBeUndefined();
    expect(messageFilter({ q: '', from: '' })).toBeUndefined();
    expect(messageFilter({ q: 'ACME', subject: 'Inv' })).toEqual({ q: 'acme', subject: 'inv' });
    expect(matches(message, undefined)).toBe(true);
  });

  it('matches substrings: q in subject, sender or text; from in "name <address>"; subject in the subject', () => {
    expect(matches(message, messageFilter({ q: '482913' }))).toBe(true);
    expect(matches(message, messageFilter({ q: 'ACME BILLING <BILLING@' }))).toBe(true);
    expect(matches(message, messageFilter({ from: 'acme billing' }))).toBe(true);
    expect(matches(message, messageFilter({ from: 'invoice' }))).toBe(false);
    expect(matches(message, messageFilter({ subject: 'code' }))).toBe(false);
    expect(matches(message, messageFilter({ subject: 'invoice', q: 'code' }))).toBe(true);
    expect(matches(message, messageFilter({ subject: 'invoice', q: 'nothing' }))).toBe(false);
  });

  it('searches no text where none is stored inline', () => {
    expect(searchFields({ from: 'a@b', from_name: null, subject: 's' })).toEqual({ subject: 's', sender: ' <a@b>', text: '' });
  });
});

describe('CORS', () => {
  it('takes * or one origin, nothing else', () => {
    expect(parseCorsOrigin(undefined)).toBe('*');
    expect(parseCorsOrigin('*')).toBe('*');
    expect(parseCorsOrigin('https://viewer.example.com')).toBe('https://viewer.example.com');
    expect(parseCorsOrigin('http://127.0.0.1:8080')).toBe('http://127.0.0.1:8080');
    for (const bad of ['https://a.example/path', 'a.example', 'https://a.example, https://b.example', "'*'", 'null']) expect(parseCorsOrigin(bad)).toBeNull();
  });

  it('exposes X-Request-Id and Retry-After, and varies on Origin only for a named origin', () => {
    expect(corsHeaders('*')).toEqual({ 'Access-Control-Allow-Origin': '*', 'Access-Control-Expose-Headers': 'X-Request-Id, Retry-After' });
    expect(corsHeaders('https://a.example').Vary).toBe('Origin');
    expect(preflightHeaders('*', ['GET', 'POST'])).toMatchObject({ 'Access-Control-Allow-Methods': 'GET, POST, OPTIONS', 'Access-Control-Allow-Headers': 'X-API-Key, Content-Type' });
  });
});

describe('inbox cursors', () => {
  it('round-trip, and refuse what the API did not make', () => {
    const position = { created_at: '2026-01-02T03:04:05.000Z', id: 'inbox_0123456789abcdefghjk' };
    expect(decodeInboxCursor(encodeInboxCursor(position))).toEqual(position);
    for (const bad of ['', 'eA', Buffer.from('2026-01-02T03:04:05.000Z inbox_x').toString('base64url'), Buffer.from(`x ${position.id}`).toString('base64url')]) {
      expect(() => decodeInboxCursor(bad)).toThrow(/cursor/);
    }
  });
});

describe("a message frame's CSP", () => {
  it('loads no remote image unless asked, and never a script', () => {
    expect(messageFrameCsp({ remoteImages: false })).toContain('img-src data:;');
    expect(messageFrameCsp({ remoteImages: true, partsOrigin: 'http://127.0.0.1:3000' })).toContain('img-src data: http://127.0.0.1:3000 http: https:;');
    expect(messageFrameCsp({ remoteImages: true })).toMatch(/^default-src 'none'/);
    expect(messageFrameCsp({ remoteImages: true })).not.toMatch(/script-src/);
  });
});
