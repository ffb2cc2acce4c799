import { sql } from 'kysely';
import type { Migration } from './index.ts';
import { rekeyCardRows } from './024-card-key-widths.ts';
import { fromJson } from '../database.ts';
import { derivePrice } from '../session-card-prices.ts';

/**
 * Card keys made again from the whole row: a card named by a later upload than its kind or year (an offline queue's
 * grading first, the card after) was keyed from the later send alone, so "tcg" Mew and Mew sent without its kind were
 * two cards in `distinct_cards` (h209). A slab named so was priced as an ungraded card: its derived price is derived
 * again as a slab's (graded first), and its session's total follows (h214).
 */
export const cardKeyLateCards: Migration = {
  name: '037-card-key-late-cards',
  sqlite: [],
  postgres: [],
  run: async (trx) => {
    await rekeyCardRows(trx);
    const slabs = await trx
      .selectFrom('card_identifications')
      .select(['id', 'session_id', 'price', 'price_basis', 'price_stats'])
      .where(sql<boolean>`lower(id_type) = 'slab'`)
      .where('price_basis', 'is not', null)
      .where('corrected_at', 'is', null)
      .execute();
    for (const r of slabs) {
      const derived = derivePrice(fromJson<unknown[]>(r.price_stats), 'slab');
      if (!derived) continue;
      const b = derived.basis;
      // as the service writes a basis: its keys sorted
      const basis = JSON.stringify({ interval: b.interval, statistic: b.statistic, stats_type: b.stats_type });
      const before = fromJson<Record<string, unknown>>(r.price_basis);
      if (derived.price === Number(r.price) && JSON.stringify(before) === basis) continue;
      await trx.updateTable('card_identifications').set({ price: derived.price, price_basis: basis }).where('id', '=', r.id).execute();
      await trx
        .updateTable('card_sessions')
        .set({ total_price: sql`total_price + ${derived.price - Number(r.price ?? 0)}` })
        .where('id', '=', r.session_id)
        .execute();
    }
  },
};
