import { sql } from 'kysely';
import type { Store } from './database.ts';

/**
 * Each collection's HNSW index is a partial index of the one `collection_records` table, and every statement on the
 * table locks every index of it until its transaction ends (h368: 1,011 locks a statement at 1,000 collections, 16 of
 * them in the backend's fast-path slots). The rest go to PostgreSQL's shared lock table, sized for
 * max_locks_per_transaction × (max_connections + max_prepared_transactions) entries and shared by every database and
 * process of the server: a few statements at once from a pool can fill it, and every statement on that server then
 * fails `out of shared memory` (53200) until they end (h369, docs/operations.md "Many collections on PostgreSQL").
 */
export interface LockBudget {
  /** The collections' HNSW indexes on collection_records (with `coming`: those about to be made). */
  hnswIndexes: number;
  /** Locks one statement on collection_records takes: every index of the table, the table, and a few of its own. */
  locksPerStatement: number;
  /** This process's connections: as many such statements at once. Other nodes' and workers' pools are not seen here. */
  poolSize: number;
  /** locksPerStatement × poolSize. */
  needed: number;
  maxLocksPerTransaction: number;
  maxConnections: number;
  maxPreparedTransactions: number;
  /** maxLocksPerTransaction × (maxConnections + maxPreparedTransactions); PostgreSQL's own adds its background processes. */
  capacity: number;
}

/**
 * Beside the indexes, a statement locks the table and holds its virtual transaction id: 1,009 locks held by each of 31
 * transactions whose one statement counted a collection's records, with 1,007 indexes on the table (h369; h368's
 * 1,011 included its own read of pg_locks).
 */
const otherLocks = 2;

/** The figures of one catalog query, or undefined on SQLite (no shared lock table). `coming`: indexes about to be made. */
export async function readLockBudget(store: Store, coming = 0): Promise<LockBudget | undefined> {
  if (store.dialect !== 'postgres') return undefined;
  const row = (
    await sql<{ indexes: number; hnsw: number; max_locks: number; max_connections: number; max_prepared: number }>`
      SELECT count(i.indexrelid)::int AS indexes, count(i.indexrelid) FILTER (WHERE am.amname = 'hnsw')::int AS hnsw,
        current_setting('max_locks_per_transaction')::int AS max_locks, current_setting('max_connections')::int AS max_connections,
        current_setting('max_prepared_transactions')::int AS max_prepared
      FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am am ON am.oid = c.relam
      WHERE i.indrelid = to_regclass('collection_records')`.execute(store.db)
  ).rows[0]!;
  return lockBudget({ indexes: row.indexes + coming, hnsw: row.hnsw + coming, maxLocks: row.max_locks, maxConnections: row.max_connections, maxPrepared: row.max_prepared, poolSize: store.poolSize ?? 10 });
}

/** The budget of these counts (the query's, or a test's). */
export function lockBudget(counts: { indexes: number; hnsw: number; maxLocks: number; maxConnections: number; maxPrepared: number; poolSize: number }): LockBudget {
  const locksPerStatement = counts.indexes + otherLocks;
  return {
    hnswIndexes: counts.hnsw,
    locksPerStatement,
    poolSize: counts.poolSize,
    needed: locksPerStatement * counts.poolSize,
    maxLocksPerTransaction: counts.maxLocks,
    maxConnections: counts.maxConnections,
    maxPreparedTransactions: counts.maxPrepared,
    capacity: counts.maxLocks * (counts.maxConnections + counts.maxPrepared),
  };
}

/** The max_locks_per_transaction at which this process's pool fills at most half the lock table. */
export function suggestedMaxLocks(b: LockBudget): number {
  return Math.max(64, Math.ceil((2 * b.needed) / (b.maxConnections + b.maxPreparedTransactions)));
}

/** Past half the lock table (the other half for other processes and the rest of the server): the operator's words. */
export function lockBudgetWarning(b: LockBudget): string | undefined {
  if (b.needed * 2 <= b.capacity) return undefined;
  return (
    `PostgreSQL's shared lock table may run out: the ${b.hnswIndexes} collections' HNSW indexes on collection_records make every statement on it take about ${b.locksPerStatement} locks, ` +
    `and this process's pool (LOUPE_PG_POOL ${b.poolSize}) runs ${b.poolSize} at once: ${b.needed} locks, over half of the lock table's ${b.capacity} entries ` +
    `(max_locks_per_transaction ${b.maxLocksPerTransaction} × (max_connections ${b.maxConnections} + max_prepared_transactions ${b.maxPreparedTransactions})), ` +
    `before the other API nodes' and workers' pools on that database server, which this process cannot count. When it runs out, calls fail 503 database_overloaded ("out of shared memory"). ` +
    `Set max_locks_per_transaction = ${suggestedMaxLocks(b)} (or more, times the number of Loupe processes sharing the server) in postgresql.conf and restart PostgreSQL (docs/operations.md "Many collections on PostgreSQL")`
  );
}
