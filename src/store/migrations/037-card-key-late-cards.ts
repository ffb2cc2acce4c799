import type { Migration } from './index.ts';
import { rekeyCardRows } from './024-card-key-widths.ts';

/**
 * Card keys made again from the whole row: a card named by a later upload than its kind or year (an offline queue's
 * grading first, the card after) was keyed from the later send alone, so "tcg" Mew and Mew sent without its kind were
 * two cards in `distinct_cards` (h209).
 */
export const cardKeyLateCards: Migration = {
  name: '037-card-key-late-cards',
  sqlite: [],
  postgres: [],
  run: async (trx) => {
    await rekeyCardRows(trx);
  },
};
