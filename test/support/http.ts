import type { Json } from './json';
/** Raw HTTP against the API, so tests see status codes, headers and bodies exactly as a client does. */
export interface HttpReply<T = Json> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);
const closedBeforeAnswer = (error: unknown): boolean => {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code === 'UND_ERR_SOCKET' || cause?.code === 'ECONNRESET' || /other side closed/.test(cause?.message ?? '');
};

export function http(baseUrl: string, key?: string) {
  return async function request<T = Json>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<HttpReply<T>> {
    const send = () =>
      fetch(`${baseUrl}${path}`, {
        method,
        headers: { ...(key ? { 'X-API-Key': key } : {}), ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}), ...headers },
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      });
    let res: Response;
    try {
      res = await send();
    } catch (error) {
      // A kept-alive connection the server closed while idle (after its 5 s keep-alive) can be reused by fetch when a
      // test blocked its event loop (spawnSync of the CLI) past the close: the request fails before any answer.
      // HTTP clients retry an idempotent request then (RFC 9110 9.2.2); so does this one, once. Seen in a clean-clone
      // CI run: cli.test's GET after a 'keys create' spawnSync, "other side closed".
      if (!IDEMPOTENT.has(method) || !closedBeforeAnswer(error)) throw error;
      res = await send();
    }
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
