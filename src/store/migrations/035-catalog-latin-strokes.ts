import { SqliteAdapter } from 'kysely';
import { normalizeName } from '../../catalog/card-keys.ts';
import { refreshCatalogNames } from '../catalog-names.ts';
import type { Migration } from './index.ts';

/**
 * Catalog names folded again now that the Latin letters no decomposition takes apart fold as everywhere else (ß → ss,
 * ł → l, ı → i, ø → o, œ → oe…): a Turkish shop's `Işık` was found by `ışık` on SQLite and not on PostgreSQL, whose
 * trigram search needs more of the name alike (h181). As 032: only rows whose folded name changes are written, and
 * each catalog touched has its names made again from its cards.
 */
export const catalogLatinStrokes: Migration = {
  name: '035-catalog-latin-strokes',
  sqlite: [],
  postgres: [],
  run: async (trx) => {
    const catalogs = (await trx.selectFrom('catalogs').select('id').execute()).map((c) => c.id);
    for (const catalogId of catalogs) {
      const before = new Set<string>();
      for (let after = ''; ; ) {
        const rows = await trx.selectFrom('catalog_cards').select(['card_key', 'name', 'name_norm']).where('catalog_id', '=', catalogId).where('card_key', '>', after).orderBy('card_key').limit(2000).execute();
        for (const r of rows) {
          // an ASCII name folds as before
          if (!/[^\p{ASCII}]/u.test(r.name)) continue;
          const norm = normalizeName(r.name);
          if (norm === r.name_norm) continue;
          before.add(r.name_norm);
          await trx.updateTable('catalog_cards').set({ name_norm: norm }).where('catalog_id', '=', catalogId).where('card_key', '=', r.card_key).execute();
        }
        if (rows.length < 2000) break;
        after = rows[rows.length - 1]!.card_key;
      }
      if (before.size) await refreshCatalogNames(trx, trx.getExecutor().adapter instanceof SqliteAdapter ? 'sqlite' : 'postgres', catalogId, [...before]);
    }
  },
};
