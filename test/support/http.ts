import type { Json } from './json';
/** Raw HTTP against the API, so tests see status codes, headers and bodies exactly as a client does. */
export interface HttpReply<T = Json> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export function http(baseUrl: string, key?: string) {
  return async function request<T = Json>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<HttpReply<T>> {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { ...(key ? { 'X-API-Key': key } : {}), ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}), ...headers },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON: keep the text
    }
    return { status: res.status, headers: res.headers, body: parsed as T, text };
  };
}

/** Asserts the API's error format and returns the message. */
export function expectError(reply: HttpReply, status: number): string {
  expect(reply.status).toBe(status);
  expect(reply.body).toEqual({ error: { code: status, message: expect.any(String) } });
  return reply.body.error.message as string;
}
