import type { Migration } from './index.ts';

/**
 * Every session's `total_price` made again as the exact sum of its cards' prices (in whole millionths, as the summary sums them: card-session-store.ts `priceMicros`, `microsSql`):
 * a running sum of floating-point deltas drifted from the rows' sum, so a session said 9447.56 where its summary said
 * 9447.57, and PostgreSQL and SQLite disagreed by the cent (h264). Writes go on rounding to the millionth since.
 */
export const sessionTotalsExact: Migration = {
  name: '041-session-totals-exact',
  sqlite: [
    `UPDATE card_sessions SET total_price = coalesce((SELECT total(CAST(i.price * 1000000 + (CASE WHEN i.price < 0 THEN -0.5 ELSE 0.5 END) AS INTEGER)) FROM card_identifications i WHERE i.session_id = card_sessions.id), 0) / 1000000.0`,
  ],
  postgres: [
    `UPDATE card_sessions SET total_price = (coalesce((SELECT sum(trunc(i.price * 1000000 + (CASE WHEN i.price < 0 THEN -0.5 ELSE 0.5 END))::numeric) FROM card_identifications i WHERE i.session_id = card_sessions.id), 0) / 1000000)::float8`,
  ],
};
