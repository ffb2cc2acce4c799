import type { Migration } from './index.ts';
import { rekeyCardRows } from './024-card-key-widths.ts';

/**
 * Card keys made again now that they fold what one script types two ways (Arabic-Indic, Persian and
 * Devanagari digits, ة and ى, the Urdu keyboard's kaf, yeh and hehs, the Hebrew geresh) and drop
 * directional marks: a session's `distinct_cards` counted one Pikachu 25/102 sent in six scripts'
 * digits as four cards, and بيكاتشو with a phone's RLM or an Urdu yeh as three (h146); and a comic's year is
 * part of its key (Avengers #1 of 1963 and of 2018 were one card, h136).
 */
export const cardKeyScripts: Migration = {
  name: '028-card-key-scripts',
  sqlite: [],
  postgres: [],
  run: async (trx) => {
    await rekeyCardRows(trx);
  },
};
