import { randomUUID } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database, DialectName } from './database.ts';

/** The tables imports stage their rows in before one transaction moves them in (migration 011). */
export type StagingTable = 'catalog_import_rows' | 'catalog_price_import_rows';

/**
 * Longer than any import (the full MTG catalog stages in about a minute here, 10 on a slow disk):
 * staged rows older than this belong to one that died before it finished (kill -9, Ctrl-C). An
 * hour, not a day: an interrupted Pokémon import leaves 16 MB behind.
 */
const abandonedAfterMs = 3_600_000;

/**
 * Runs `work` with a fresh import id whose rows it stages in `table`, and removes those rows
 * afterwards whatever happens (and, before, rows an earlier import left by dying: nothing reads
 * them). The catalog and price imports stage alike (`CatalogStore.applyImport`,
 * `PriceStore.applyImport`).
 */
export async function withStagedImport<T>(db: Kysely<Database>, table: StagingTable, work: (importId: string) => Promise<T>): Promise<T> {
  await removeAbandonedStaging(db, [table]);
  const importId = randomUUID();
  try {
    return await work(importId);
  } finally {
    try {
      await db.deleteFrom(table).where('import_id', '=', importId).execute();
    } catch {
      // An import an hour later removes them; the import's own outcome (or error) is what matters.
    }
  }
}

/** The server's sweep waits longer than an import's start does: an import may run past an hour on a slow disk (h144). */
export const sweptStagingAfterMs = 6 * 3_600_000;

/**
 * Removes the rows imports that did not finish left staged (a kill, or a clean-up that failed on a
 * full disk): by the next import, and by the server's periodic sweep, which ran none before (h139:
 * 58,638 rows, 78 MB, stayed on a full disk after the MTG import's own clean-up failed). Returns how many.
 */
export async function removeAbandonedStaging(db: Kysely<Database>, tables: readonly StagingTable[] = ['catalog_import_rows', 'catalog_price_import_rows'], now = Date.now(), olderThanMs = abandonedAfterMs): Promise<number> {
  let removed = 0;
  for (const table of tables) removed += Number((await db.deleteFrom(table).where('created_at', '<', new Date(now - olderThanMs).toISOString()).executeTakeFirst()).numDeletedRows);
  return removed;
}

/**
 * Awaited after each staged batch: SQLite's driver is synchronous, so an import never gave the
 * event loop a turn and a Ctrl-C was only heard once the import had ended (the CLI stops an
 * import between batches, `src/cli.ts`).
 */
export const betweenBatches = (): Promise<void> => nextTurn();

/**
 * A parameter in the select list of an INSERT … SELECT: PostgreSQL types a bare one as text,
 * which a uuid, integer or timestamptz column refuses, so it is cast there; SQLite takes it as is.
 */
export function selectedValue(dialect: DialectName, value: string | number, pgType: 'uuid' | 'text' | 'integer' | 'timestamptz'): RawBuilder<unknown> {
  return dialect === 'postgres' ? sql`cast(${value} as ${sql.raw(pgType)})` : sql`${value}`;
}
