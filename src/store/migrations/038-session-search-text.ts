import { sql } from 'kysely';
import type { Migration } from './index.ts';
import { refoldSessionSearch } from '../card-session-store.ts';

/**
 * A session's searched fields folded once, when written (`search_text`), rather than by every search: a search folded
 * and scanned every session of the workspace (300,000 sessions: 3.6–4.8 s on PostgreSQL, the readiness check failing
 * meanwhile, h226). PostgreSQL indexes the text by trigrams (pg_trgm, already there for the catalogs' names), which
 * LIKE '%word%' uses; the index is made after the sessions stored before are folded, so that fill does not update it.
 * `card_sessions_unfolded` finds the sessions without one, which the retention sweep folds: a node of the release before
 * that went on writing while this one upgraded stored them so (h234).
 */
export const sessionSearchText: Migration = {
  name: '038-session-search-text',
  sqlite: [`ALTER TABLE card_sessions ADD COLUMN search_text TEXT NOT NULL DEFAULT ''`, `CREATE INDEX card_sessions_unfolded ON card_sessions(id) WHERE search_text = ''`],
  postgres: [`ALTER TABLE card_sessions ADD COLUMN search_text text NOT NULL DEFAULT ''`, `CREATE INDEX card_sessions_unfolded ON card_sessions(id) WHERE search_text = ''`],
  run: async (trx, dialect) => {
    await refoldSessionSearch(trx, dialect);
    if (dialect === 'postgres') await sql`CREATE INDEX IF NOT EXISTS card_sessions_search ON card_sessions USING gin (search_text gin_trgm_ops) WITH (fastupdate = off)`.execute(trx);
  },
};
