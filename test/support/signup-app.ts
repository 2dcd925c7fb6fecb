/**
 * A tiny web app with a sign-up form, for the Playwright fixture's test (test/e2e/playwright-fixture.test.ts): its
 * form's submit makes this server send a sign-up mail over real SMTP to a stack, with a confirmation link back to it
 * (or a code to type in), as the application under a user's test would. It records which addresses followed their
 * link, so the test can prove the browser really did.
 */
import { randomBytes, randomInt } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { sendMail } from './mail';

export interface SignupApp {
  url: string;
  /** Addresses whose link was followed or whose code was typed in, in order. */
  confirmed: string[];
  close(): Promise<void>;
}

const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body>${body}</body></html>`;
const escape = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

async function form(req: http.IncomingMessage): Promise<URLSearchParams> {
  let body = '';
  for await (const chunk of req) body += chunk;
  return new URLSearchParams(body);
}

export async function startSignupApp(smtpPort: number): Promise<SignupApp> {
  const pending = new Map<string, string>(); // token or code → address
  const confirmed: string[] = [];
  let base = '';
  const confirm = (key: string | null, res: http.ServerResponse) => {
    const email = key === null ? undefined : pending.get(key);
    if (email === undefined) return void res.writeHead(404, { 'Content-Type': 'text/html' }).end(page('Unknown', '<h1>Unknown or used link</h1>'));
    pending.delete(key!);
    confirmed.push(email);
    res.writeHead(200, { 'Content-Type': 'text/html' }).end(page('Welcome', `<h1>Welcome, ${escape(email)}</h1>`));
  };

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', base);
    try {
      if (req.method === 'GET' && url.pathname === '/') {
        res.writeHead(200, { 'Content-Type': 'text/html' }).end(
          page(
            'Sign up',
            '<h1>Sign up</h1><form method="post" action="/signup"><label>E-mail <input name="email" type="email" required></label>' +
              '<label><input type="checkbox" name="code"> Send me a code instead</label><button>Sign up</button></form>',
          ),
        );
      } else if (req.method === 'POST' && url.pathname === '/signup') {
        const fields = await form(req);
        const email = fields.get('email') ?? '';
        if (fields.get('code')) {
          const code = String(randomInt(100_000, 1_000_000));
          pending.set(code, email);
          await sendMail(smtpPort, { from: 'Acme <noreply@acme.example>', to: email, subject: 'Your Acme sign-up code', text: `Your sign-up code is ${code}.\nIt is valid for 10 minutes.` });
          res.writeHead(200, { 'Content-Type': 'text/html' }).end(page('Code', '<h1>Check your mail</h1><form method="post" action="/code"><label>Code <input name="code"></label><button>Confirm</button></form>'));
          return;
        }
        const token = randomBytes(16).toString('hex');
        pending.set(token, email);
        const link = `${base}/confirm?token=${token}`;
        await sendMail(smtpPort, {
          from: 'Acme <noreply@acme.example>',
          to: email,
          subject: 'Confirm your Acme account',
          text: `Welcome to Acme!\nConfirm your address: ${link}\nHelp: ${base}/help`,
          html: `<p>Welcome to Acme!</p><p><a href="${link}">Confirm your address</a></p><p><a href="${base}/help">Help</a></p>`,
        });
        res.writeHead(200, { 'Content-Type': 'text/html' }).end(page('Sent', '<h1>Check your mail</h1>'));
      } else if (req.method === 'GET' && url.pathname === '/confirm') {
        confirm(url.searchParams.get('token'), res);
      } else if (req.method === 'POST' && url.pathname === '/code') {
        confirm((await form(req)).get('code'), res);
      } else {
        res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
      }
    } catch (error) {
      res.writeHead(500, { 'Content-Type': 'text/plain' }).end(String(error));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url: base, confirmed, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
