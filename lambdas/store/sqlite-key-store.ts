/** KeyStore on the embedded SQLite database: API keys by their SHA-256 (never the key itself). */
import type { ApiKeyRecord } from '../core/model';
import type { KeyStore } from '../core/ports';
import type { Engine } from './sqlite-engine';

const parse = <T>(json: unknown): T => JSON.parse(String(json)) as T;

export class SqliteKeyStore implements KeyStore {
  constructor(private readonly engine: Engine) {}

  async putKey(key: ApiKeyRecord): Promise<void> {
    const { engine } = this;
    await engine.write(() => engine.sql('INSERT INTO api_keys (key_hash, created_at, record) VALUES (?, ?, ?)').run(key.key_hash, key.created_at, JSON.stringify(key)), true);
  }

  async getKey(keyHash: string): Promise<ApiKeyRecord | null> {
    const row = this.engine.read(() => this.engine.sql('SELECT record FROM api_keys WHERE key_hash = ?').get(keyHash));
    return row ? parse<ApiKeyRecord>(row.record) : null;
  }

  async listKeys(): Promise<ApiKeyRecord[]> {
    return this.engine.read(() => this.engine.sql('SELECT record FROM api_keys ORDER BY created_at, key_hash').all()).map((r) => parse<ApiKeyRecord>(r.record));
  }

  revokeKey(keyHash: string, atIso: string): Promise<ApiKeyRecord | null> {
    const { engine } = this;
    return engine.write(() => {
      const row = engine.sql('SELECT record FROM api_keys WHERE key_hash = ?').get(keyHash);
      if (!row) return null;
      const record = parse<ApiKeyRecord>(row.record);
      record.revoked_at ??= atIso;
      engine.sql('UPDATE api_keys SET record = ? WHERE key_hash = ?').run(JSON.stringify(record), keyHash);
      return record;
    }, true);
  }
}
