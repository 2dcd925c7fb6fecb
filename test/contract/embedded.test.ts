/** The storage contract on the embedded store: SQLite in a fresh data folder, in this process. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { appConfig } from '../../lambdas/config/app-config';
import { appContext } from '../../lambdas/usecases/context';
import { storeContract } from './contract';

storeContract('the embedded store (SQLite)', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tempmail-contract-'));
  const ctx = appContext(appConfig({ store: { kind: 'embedded', dataDir, publicUrl: 'http://127.0.0.1:9' } }));
  return {
    ctx,
    async close() {
      await ctx.stores.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
});
