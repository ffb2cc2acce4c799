import type { Migration } from './index.ts';

/**
 * SQLite: the sessions' search text indexed by trigrams (FTS5, case-sensitive, as the text is folded already), which a
 * search of a rare word reads instead of every session of the workspace (300,000 sessions: 186 ms on the event loop,
 * the fiftieth session's bench). An external-content table kept in step by triggers, so any writer (an older node, the
 * CLI, a shell) keeps it; with FTS5's `secure-delete`, a deleted or renamed session's trigrams leave the index as it
 * changes (a contentless table kept them until its segments merged, and a rewrite of the whole index to remove them
 * took 0.8 s and 35 MB of writes at 300,000 sessions, h243). PostgreSQL has its trigram index since 038.
 */
export const sessionSearchIndex: Migration = {
  name: '039-session-search-index',
  sqlite: [
    `CREATE VIRTUAL TABLE card_sessions_fts USING fts5(search_text, content='card_sessions', content_rowid='seq', tokenize='trigram case_sensitive 1')`,
    `INSERT INTO card_sessions_fts (card_sessions_fts, rank) VALUES ('secure-delete', 1)`,
    `INSERT INTO card_sessions_fts (rowid, search_text) SELECT seq, search_text FROM card_sessions`,
    `CREATE TRIGGER card_sessions_fts_insert AFTER INSERT ON card_sessions BEGIN
       INSERT INTO card_sessions_fts (rowid, search_text) VALUES (new.seq, new.search_text);
     END`,
    `CREATE TRIGGER card_sessions_fts_update AFTER UPDATE OF search_text ON card_sessions WHEN old.search_text <> new.search_text BEGIN
       INSERT INTO card_sessions_fts (card_sessions_fts, rowid, search_text) VALUES ('delete', old.seq, old.search_text);
       INSERT INTO card_sessions_fts (rowid, search_text) VALUES (new.seq, new.search_text);
     END`,
    `CREATE TRIGGER card_sessions_fts_delete AFTER DELETE ON card_sessions BEGIN
       INSERT INTO card_sessions_fts (card_sessions_fts, rowid, search_text) VALUES ('delete', old.seq, old.search_text);
     END`,
  ],
  postgres: [],
};
