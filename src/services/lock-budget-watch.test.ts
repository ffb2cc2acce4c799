import { describe, expect, it } from 'vitest';
import { lockBudget, type LockBudget } from '../store/pg-lock-budget.ts';
import { LockBudgetWatch } from './lock-budget-watch.ts';

describe('the lock-table watch', () => {
  const figures = (collections: number) => lockBudget({ indexes: collections + 7, hnsw: collections, maxLocks: 64, maxConnections: 100, maxPrepared: 0, poolSize: 6 });

  it('logs the warning once a process, at the check that first passes the mark, and counts a collection about to be indexed', async () => {
    let collections = 523;
    const asked: number[] = [];
    const logged: { level: string; message: string; fields?: Record<string, unknown> }[] = [];
    const watch = new LockBudgetWatch(
      async (coming) => {
        asked.push(coming);
        return figures(collections + coming);
      },
      (level, message, fields) => logged.push({ level, message, ...(fields ? { fields } : {}) }),
    );
    await watch.check();
    expect(logged).toEqual([]);
    // the shop's next collection: 524 + 1 coming passes, (525 + 7 + 2) × 6 = 3,204 > 3,200
    collections = 524;
    const b = (await watch.check(1))!;
    expect(asked).toEqual([0, 1]);
    expect(b.hnswIndexes).toBe(525);
    expect(logged).toHaveLength(1);
    expect(logged[0]!.level).toBe('warn');
    expect(logged[0]!.message).toMatch(/^PostgreSQL's shared lock table may run out: the 525 collections' HNSW indexes .* Set max_locks_per_transaction = 65 /);
    expect(logged[0]!.fields).toMatchObject({ needed: 3_204, capacity: 6_400, suggestedMaxLocksPerTransaction: 65 });
    collections = 900;
    await watch.check(1);
    expect(logged).toHaveLength(1);
  });

  it('never fails what asked: a read that fails is logged and answers nothing; SQLite answers nothing', async () => {
    const logged: string[] = [];
    const failing = new LockBudgetWatch(
      async () => {
        throw new Error('connection terminated');
      },
      (_level, message) => logged.push(message),
    );
    expect(await failing.check(1)).toBeUndefined();
    expect(logged[0]).toMatch(/could not read the figures of PostgreSQL's lock table/);
    const sqlite = new LockBudgetWatch(async (): Promise<LockBudget | undefined> => undefined, (_level, message) => logged.push(message));
    expect(await sqlite.check()).toBeUndefined();
    expect(logged).toHaveLength(1);
  });
});
