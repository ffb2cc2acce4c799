import type { Migration } from './index.ts';

/**
 * Card sessions take the published client's values as it sends them (issue 16):
 * - `game` is free text; `game_key` (NFC, lower-case, trimmed, made by the service) is what the
 *   session list's `game` filter compares, so it matches alike on both backends (SQLite's lower()
 *   folds only ASCII). Stored games so far are the four ASCII spellings or empty.
 * - `price_basis` names the `price_stats` entry a derived price came from; null when the price
 *   was sent, corrected, or there is none.
 * - `grade` outside 0–10 (accepted before grades were validated: 1e308, "0x1A" read as 26) is no
 *   grade: the summary's average skips it anyway, and the row no longer shows it.
 */
export const cardSessionValues: Migration = {
  name: '004-card-session-values',
  sqlite: [
    `ALTER TABLE card_sessions ADD COLUMN game_key TEXT NOT NULL DEFAULT ''`,
    `UPDATE card_sessions SET game_key = lower(trim(game))`,
    `CREATE INDEX card_sessions_game ON card_sessions(workspace_id, game_key, started DESC, seq DESC)`,
    `ALTER TABLE card_identifications ADD COLUMN price_basis TEXT`,
    `UPDATE card_identifications SET grade = NULL WHERE grade < 0 OR grade > 10`,
  ],
  postgres: [
    `ALTER TABLE card_sessions ADD COLUMN game_key text NOT NULL DEFAULT ''`,
    `UPDATE card_sessions SET game_key = lower(trim(game))`,
    `CREATE INDEX card_sessions_game ON card_sessions(workspace_id, game_key, started DESC, seq DESC)`,
    `ALTER TABLE card_identifications ADD COLUMN price_basis jsonb`,
    `UPDATE card_identifications SET grade = NULL WHERE grade < 0 OR grade > 10 OR grade = 'NaN'::float8`,
  ],
};
