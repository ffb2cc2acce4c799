import type { Migration } from './index.ts';

/**
 * SQLite: the sessions' search text indexed by trigrams (FTS5, case-sensitive, as the text is folded already), which a
 * search of a rare word reads instead of every session of the workspace (300,000 sessions: 186 ms on the event loop,
 * the fiftieth session's bench). Kept in step by triggers, so any writer (an older node, the CLI) keeps it. FTS5 keeps
 * a deleted or replaced row's trigrams until its segments are merged: the triggers name the table in
 * `search_index_erasures`, and the checkpointer (or an erasure command) rewrites it (`optimize`) and empties the write-
 * ahead log after (README "Erasure"). PostgreSQL has its trigram index since 038.
 */
export const sessionSearchIndex: Migration = {
  name: '039-session-search-index',
  sqlite: [
    `CREATE VIRTUAL TABLE card_sessions_fts USING fts5(search_text, content='', contentless_delete=1, tokenize='trigram case_sensitive 1')`,
    `INSERT INTO card_sessions_fts (rowid, search_text) SELECT seq, search_text FROM card_sessions WHERE search_text <> ''`,
    `CREATE TABLE search_index_erasures (name TEXT PRIMARY KEY)`,
    `CREATE TRIGGER card_sessions_fts_insert AFTER INSERT ON card_sessions WHEN new.search_text <> '' BEGIN
       INSERT INTO card_sessions_fts (rowid, search_text) VALUES (new.seq, new.search_text);
     END`,
    `CREATE TRIGGER card_sessions_fts_update AFTER UPDATE OF search_text ON card_sessions WHEN old.search_text <> new.search_text BEGIN
       DELETE FROM card_sessions_fts WHERE rowid = old.seq;
       INSERT INTO card_sessions_fts (rowid, search_text) SELECT new.seq, new.search_text WHERE new.search_text <> '';
       INSERT OR IGNORE INTO search_index_erasures (name) SELECT 'card_sessions_fts' WHERE old.search_text <> '';
     END`,
    `CREATE TRIGGER card_sessions_fts_delete AFTER DELETE ON card_sessions BEGIN
       DELETE FROM card_sessions_fts WHERE rowid = old.seq;
       INSERT OR IGNORE INTO search_index_erasures (name) SELECT 'card_sessions_fts' WHERE old.search_text <> '';
     END`,
  ],
  postgres: [],
};
