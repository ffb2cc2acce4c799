import pg from 'pg';
import { describe, expect, it } from 'vitest';
import type { Store } from '../store/database.ts';
import { scratchPgDatabase } from '../../test/helpers/processes.ts';
import { QueueSignal } from './queue-signal.ts';

describe.runIf(process.env.DATABASE_URL)('queue notices on PostgreSQL', () => {
  it('listen again after an outage longer than a reconnect, and say so (h226: after one failed reconnect, never again)', async () => {
    const db = await scratchPgDatabase('loupe_signal');
    const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await admin.connect();
    const name = new URL(db.url).pathname.slice(1);
    const said: string[] = [];
    const signal = await QueueSignal.open({ dialect: 'postgres', databaseUrl: db.url } as unknown as Store, { listen: true, retryMs: 50, onError: () => said.push('lost'), onBack: (n) => said.push(`back after ${n}`) });
    try {
      let woken = 0;
      signal.on('requests', () => woken++);
      const notify = async () => {
        const c = new pg.Client({ connectionString: db.url });
        await c.connect();
        await c.query('NOTIFY loupe_requests');
        await c.end();
      };
      await notify();
      await expect.poll(() => woken).toBe(1);
      // the database refuses connections for a while: several reconnects fail
      await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
      await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1`, [name]);
      await expect.poll(() => said).toContain('lost');
      await new Promise((r) => setTimeout(r, 600));
      await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
      await expect.poll(() => said.find((s) => s.startsWith('back after')), { timeout: 5_000 }).toMatch(/^back after [2-9]/);
      await notify();
      await expect.poll(() => woken).toBe(2);
      expect(said.filter((s) => s === 'lost')).toHaveLength(1);
    } finally {
      await signal.close();
      await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`).catch(() => {});
      await admin.end();
      await db.drop();
    }
  });
});
