/**
 * WebhookStore on the embedded SQLite database (on the engine and group commit the other stores share): webhooks,
 * delivery records (purged after their keep time, as DynamoDB's TTL does on AWS) and the local form's delivery
 * queue, so that a delivery waiting for a retry survives a restart. Tables: migration 005-webhooks.sql.
 */
import type { DeliveryJob, DeliveryRecord, WebhookRecord } from '../core/webhooks';
import type { Page, WebhookStore } from '../core/ports';
import type { Engine } from './sqlite-engine';

const parse = <T>(json: unknown): T => JSON.parse(String(json)) as T;

export class SqliteWebhookStore implements WebhookStore {
  /** Each account's webhooks, read for every mail it receives: kept by the one writer, written through (as the inbox store's routes). */
  private readonly byAccount = new Map<string, WebhookRecord[]>();

  constructor(private readonly engine: Engine) {
    engine.onExternalChange(() => this.byAccount.clear());
  }

  putWebhook(hook: WebhookRecord, maxPerAccount: number): Promise<boolean> {
    const { engine } = this;
    return engine.write(() => {
      const held = Number(engine.sql('SELECT COUNT(*) AS n FROM webhooks WHERE account_id = ?').get(hook.account_id)?.n ?? 0);
      if (held >= maxPerAccount) return false;
      engine.sql('INSERT INTO webhooks (account_id, id, record) VALUES (?, ?, ?)').run(hook.account_id, hook.id, JSON.stringify(hook));
      return true;
    }, false, () => this.byAccount.delete(hook.account_id));
  }

  async getWebhook(accountId: string, webhookId: string): Promise<WebhookRecord | null> {
    const row = this.engine.read(() => this.engine.sql('SELECT record FROM webhooks WHERE account_id = ? AND id = ?').get(accountId, webhookId));
    return row ? parse<WebhookRecord>(row.record) : null;
  }

  async listWebhooks(accountId: string, limit: number, after?: string): Promise<Page<WebhookRecord>> {
    const rows = this.engine.read(() =>
      this.engine.sql('SELECT record FROM webhooks WHERE account_id = ? AND id > ? ORDER BY id LIMIT ?').all(accountId, after ?? '', limit + 1),
    );
    const items = rows.slice(0, limit).map((r) => parse<WebhookRecord>(r.record));
    return { items, last: rows.length > limit ? items[items.length - 1].id : undefined };
  }

  async accountWebhooks(accountId: string): Promise<WebhookRecord[]> {
    this.engine.read(() => this.engine.checkExternalChange());
    let hooks = this.byAccount.get(accountId);
    if (!hooks) {
      hooks = this.engine.read(() => this.engine.sql('SELECT record FROM webhooks WHERE account_id = ? ORDER BY id').all(accountId)).map((r) => parse<WebhookRecord>(r.record));
      if (this.byAccount.size >= 10_000) this.byAccount.clear();
      this.byAccount.set(accountId, hooks);
    }
    return hooks.map((h) => ({ ...h }));
  }

  deleteWebhook(accountId: string, webhookId: string): Promise<boolean> {
    const { engine } = this;
    return engine.write(
      () => engine.sql('DELETE FROM webhooks WHERE account_id = ? AND id = ?').run(accountId, webhookId).changes > 0,
      false,
      () => this.byAccount.delete(accountId),
    );
  }

  disableWebhook(accountId: string, webhookId: string, reason: string, atIso: string): Promise<boolean> {
    const { engine } = this;
    return engine.write(() => {
      const row = engine.sql('SELECT record FROM webhooks WHERE account_id = ? AND id = ?').get(accountId, webhookId);
      if (!row) return false;
      const hook = parse<WebhookRecord>(row.record);
      if (hook.status === 'disabled') return true;
      const disabled: WebhookRecord = { ...hook, status: 'disabled', disabled_reason: reason, disabled_at: atIso };
      engine.sql('UPDATE webhooks SET record = ? WHERE account_id = ? AND id = ?').run(JSON.stringify(disabled), accountId, webhookId);
      return true;
    }, false, () => this.byAccount.delete(accountId));
  }

  async putDelivery(delivery: DeliveryRecord, keepSeconds: number): Promise<void> {
    const { engine } = this;
    const expires = Date.parse(delivery.attempted_at) + keepSeconds * 1000;
    await engine.write(() => {
      engine.sql('INSERT INTO webhook_deliveries (webhook_id, expires_at_ms, record) VALUES (?, ?, ?)').run(delivery.webhook_id, expires, JSON.stringify(delivery));
      // The purge DynamoDB's TTL does on AWS, a few expired rows at a time.
      engine.sql('DELETE FROM webhook_deliveries WHERE seq IN (SELECT seq FROM webhook_deliveries WHERE expires_at_ms <= ? LIMIT 10)').run(Date.now());
    });
  }

  async listDeliveries(webhookId: string, limit: number, nowMs: number): Promise<DeliveryRecord[]> {
    return this.engine
      .read(() => this.engine.sql('SELECT record FROM webhook_deliveries WHERE webhook_id = ? AND expires_at_ms > ? ORDER BY seq DESC LIMIT ?').all(webhookId, nowMs, limit))
      .map((r) => parse<DeliveryRecord>(r.record));
  }

  async putJobs(jobs: DeliveryJob[]): Promise<void> {
    const { engine } = this;
    await engine.write(() => {
      for (const job of jobs) engine.sql('INSERT OR IGNORE INTO webhook_jobs (event_id, due_at_ms, job) VALUES (?, ?, ?)').run(job.event_id, job.due_at_ms, JSON.stringify(job));
    });
  }

  async rescheduleJob(job: DeliveryJob): Promise<void> {
    const { engine } = this;
    await engine.write(() => engine.sql('INSERT OR REPLACE INTO webhook_jobs (event_id, due_at_ms, job) VALUES (?, ?, ?)').run(job.event_id, job.due_at_ms, JSON.stringify(job)));
  }

  async deleteJob(eventId: string): Promise<void> {
    const { engine } = this;
    await engine.write(() => engine.sql('DELETE FROM webhook_jobs WHERE event_id = ?').run(eventId));
  }

  async dueJobs(nowMs: number, limit: number): Promise<DeliveryJob[]> {
    return this.engine.read(() => this.engine.sql('SELECT job FROM webhook_jobs WHERE due_at_ms <= ? ORDER BY due_at_ms LIMIT ?').all(nowMs, limit)).map((r) => parse<DeliveryJob>(r.job));
  }

  async nextJobDue(): Promise<number | null> {
    const row = this.engine.read(() => this.engine.sql('SELECT MIN(due_at_ms) AS due FROM webhook_jobs').get());
    return row?.due === null || row?.due === undefined ? null : Number(row.due);
  }
}
