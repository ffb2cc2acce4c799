import { sql, SqliteAdapter, type Transaction } from 'kysely';
import { normalizeName } from '../catalog/card-keys.ts';
import type { Database } from './database.ts';

const batchRows = 500;

/**
 * Brings the catalog's names (the text-search rows) in line with its cards, in the import's
 * transaction: counts and display names from one pass over the catalog's cards, new names
 * added; names that cards were renamed from go when no card bears them any more. On SQLite the
 * FTS rows follow by trigger. Gone names are looked up by name, not found by an anti-join of
 * names against cards: statistics from before the import made PostgreSQL plan that join as
 * nested scans, which ran for minutes on MTG. (Counting only the names of the cards written,
 * through a subquery on the staged rows, met the same planning on PostgreSQL and saved no
 * measurable lock time on SQLite.)
 * Shared by imports and migration 032, which folds names again.
 */
export async function refreshCatalogNames(trx: Transaction<Database>, dialect: 'sqlite' | 'postgres', catalogId: string, renamedFrom: readonly string[]): Promise<void> {
  await sql`
    INSERT INTO catalog_names (catalog_id, name_norm, name, card_count)
    SELECT catalog_id, name_norm, min(name), count(*) FROM catalog_cards WHERE catalog_id = ${catalogId} GROUP BY catalog_id, name_norm
    ON CONFLICT (catalog_id, name_norm) DO UPDATE SET name = excluded.name, card_count = excluded.card_count
    WHERE catalog_names.name <> excluded.name OR catalog_names.card_count <> excluded.card_count`.execute(trx);
  for (let i = 0; i < renamedFrom.length; i += batchRows) {
    const names = renamedFrom.slice(i, i + batchRows);
    const borne = new Set((await trx.selectFrom('catalog_cards').select('name_norm').distinct().where('catalog_id', '=', catalogId).where('name_norm', 'in', names).execute()).map((r) => r.name_norm));
    const gone = names.filter((n) => !borne.has(n));
    if (gone.length) await trx.deleteFrom('catalog_names').where('catalog_id', '=', catalogId).where('name_norm', 'in', gone).execute();
  }
  // The planner's statistics on names are what they were before this import (or absent): with
  // the catalog's id unknown to them it took one catalog's names for a handful and filtered
  // them all by similarity (50 ms a search on MTG) instead of using the trigram index (3–8 ms).
  // ANALYZE in the transaction samples its own new rows; others see the statistics at commit.
  if (dialect === 'postgres') await sql`ANALYZE catalog_names`.execute(trx);
}

/**
 * Every catalog's stored names folded again by today's `normalizeName` (a migration's work when the fold changes:
 * 032, 035). Only rows whose folded name changes are written (an ASCII name folds as before), and each catalog touched
 * has its names, the name search's rows, made again from its cards by the function an import uses.
 */
export async function refoldCatalogNames(trx: Transaction<Database>): Promise<void> {
  const dialect = trx.getExecutor().adapter instanceof SqliteAdapter ? 'sqlite' : 'postgres';
  const catalogs = (await trx.selectFrom('catalogs').select('id').execute()).map((c) => c.id);
  for (const catalogId of catalogs) {
    const before = new Set<string>();
    for (let after = ''; ; ) {
      const rows = await trx.selectFrom('catalog_cards').select(['card_key', 'name', 'name_norm']).where('catalog_id', '=', catalogId).where('card_key', '>', after).orderBy('card_key').limit(2000).execute();
      for (const r of rows) {
        if (!/[^\p{ASCII}]/u.test(r.name)) continue;
        const norm = normalizeName(r.name);
        if (norm === r.name_norm) continue;
        before.add(r.name_norm);
        await trx.updateTable('catalog_cards').set({ name_norm: norm }).where('catalog_id', '=', catalogId).where('card_key', '=', r.card_key).execute();
      }
      if (rows.length < 2000) break;
      after = rows[rows.length - 1]!.card_key;
    }
    if (before.size) await refreshCatalogNames(trx, dialect, catalogId, [...before]);
  }
}
