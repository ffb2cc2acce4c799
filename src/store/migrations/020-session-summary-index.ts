import type { Migration } from './index.ts';

/**
 * A session's summary (rows, distinct cards, total price, calls, mean grade) read every row of the
 * session from the table: 25 ms for 21,000 rows on SQLite, on the server's one event loop, which a
 * live stream's viewers poll every second (a helper's six viewers held `/health` to 158 ms at p99).
 * An index holding the columns it reads answers it from the index alone (2.8 ms). PostgreSQL runs the
 * query off the event loop, and its `count(DISTINCT …)` (before release 16) sorts whatever it reads:
 * 13–14 ms with such an index or without it, so it gets none.
 */
export const sessionSummaryIndex: Migration = {
  name: '020-session-summary-index',
  sqlite: [`CREATE INDEX IF NOT EXISTS card_identifications_summary ON card_identifications(session_id, card_key, price, calls, grade)`],
  postgres: [],
};
