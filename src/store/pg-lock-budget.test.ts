import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openTestStore } from '../../test/helpers/catalogs.ts';
import { backends } from '../../test/helpers/harness.ts';
import { AccountStore } from './account-store.ts';
import { CollectionStore } from './collection-store.ts';
import { lockBudget, lockBudgetWarning, readLockBudget, suggestedMaxLocks } from './pg-lock-budget.ts';

describe('PostgreSQL lock table: what a pool of statements on collection_records may hold (h369)', () => {
  // collection_records has 7 indexes of its own beside the collections' HNSW ones
  const at = (collections: number, pool: number, maxLocks = 64, maxConnections = 100) => lockBudget({ indexes: collections + 7, hnsw: collections, maxLocks, maxConnections, maxPrepared: 0, poolSize: pool });

  it('warns past half the table, with the figures and the setting to raise', () => {
    const b = at(1_000, 6);
    expect([b.locksPerStatement, b.needed, b.capacity]).toEqual([1_009, 6_054, 6_400]);
    expect(suggestedMaxLocks(b)).toBe(122);
    const warning = lockBudgetWarning(b)!;
    expect(warning).toContain("the 1000 collections' HNSW indexes on collection_records make every statement on it take about 1009 locks");
    expect(warning).toContain('LOUPE_PG_POOL 6');
    expect(warning).toContain("6054 locks, over half of the lock table's 6400 entries (max_locks_per_transaction 64 × (max_connections 100 + max_prepared_transactions 0))");
    expect(warning).toContain('Set max_locks_per_transaction = 122');
    expect(warning).toContain('503 database_overloaded');
  });

  it('says nothing under half, nor once the setting suggested is made', () => {
    expect(lockBudgetWarning(at(200, 6))).toBeUndefined();
    expect(lockBudgetWarning(at(1_000, 6, 122))).toBeUndefined();
    // the mark at the defaults and a pool of 6: (524 + 7 + 2) × 6 = 3,198 ≤ 3,200 < 3,204
    expect(lockBudgetWarning(at(524, 6))).toBeUndefined();
    expect(lockBudgetWarning(at(525, 6))).toBeDefined();
  });

  it.each(backends)('reads the counts and settings in one query on PostgreSQL, nothing on SQLite (%s)', async (backend) => {
    const t = await openTestStore(backend);
    try {
      if (backend === 'sqlite') return expect(await readLockBudget(t.store)).toBeUndefined();
      const before = (await readLockBudget(t.store))!;
      const accountId = randomUUID();
      await new AccountStore(t.store).createAccount({ id: accountId, name: 'locks', credits: 0, services: [], workspaceId: randomUUID(), tokenId: randomUUID(), tokenHash: randomUUID() });
      const cs = new CollectionStore(t.store);
      const { id } = await cs.create({ id: randomUUID(), accountId, type: 'photo', name: 'c', productField: null, capacity: 10 });
      // the HNSW index comes with the first insert
      expect((await readLockBudget(t.store, 1))!.hnswIndexes).toBe(before.hnswIndexes + 1);
      await cs.insert(id, [{ recordId: 'a', data: { _id: 'a' }, vector: Float32Array.from([1, 0, 0, 0]) }], 'test');
      const after = (await readLockBudget(t.store))!;
      const shown = (await sql<{ l: string; c: string }>`SELECT current_setting('max_locks_per_transaction') AS l, current_setting('max_connections') AS c`.execute(t.store.db)).rows[0]!;
      expect([after.hnswIndexes, after.locksPerStatement, after.maxLocksPerTransaction, after.maxConnections, after.poolSize]).toEqual([before.hnswIndexes + 1, before.locksPerStatement + 1, Number(shown.l), Number(shown.c), t.store.poolSize]);
    } finally {
      await t.close();
    }
  });
});
