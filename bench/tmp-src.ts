import { execFileSync } from 'node:child_process';
import { startStack } from '../test/support/stack';
import { cpuMs } from './load';
(async () => {
  const stack = await startStack({ env: { TEMPMAIL_PLAN_OVERRIDES: JSON.stringify({ enterprise: { requests_per_minute: 100_000_000, emails_per_day: 100_000_000 } }) } });
  const headers = { 'X-API-Key': stack.keys.enterprise };
  const inbox = (await (await fetch(`${stack.apiUrl}/v1/inboxes`, { method: 'POST', headers })).json()) as { id: string; email: string };
  const n = Number(process.env.N ?? 4000);
  const c0 = cpuMs(stack.pid()); const t0 = Date.now();
  execFileSync('smtp-source', ['-s', '10', '-d', '-m', String(n), '-l', '2048', '-f', 'bench@example.com', '-t', inbox.email, `127.0.0.1:${stack.smtpPort}`]);
  for (;;) { const r = (await (await fetch(`${stack.apiUrl}/v1/inboxes/${inbox.id}`, { headers })).json()) as { message_count: number }; if (r.message_count >= n) break; await new Promise((r) => setTimeout(r, 20)); }
  const s = (Date.now() - t0) / 1000;
  console.log(`${(n / s).toFixed(0)} mail/s, stack CPU ${((cpuMs(stack.pid()) - c0) / n).toFixed(2)} ms/mail`);
  await stack.stop();
})();
