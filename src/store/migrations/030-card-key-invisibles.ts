import type { Migration } from './index.ts';
import { rekeyCardRows } from './024-card-key-widths.ts';

/**
 * Card keys made again now that they drop what no one sees in a name (zero-width spaces and joiners, soft hyphens,
 * emoji variation selectors), fold the curly apostrophes and dashes a phone's smart punctuation types, ß as ss, ς as
 * σ, the i of İ, and a Greek word's accents: `distinct_cards` counted "Farfetch’d" and "Farfetch'd", "ΠΙΚΑΤΣΟΥ" and
 * "Πικάτσου", "Pikachu" with a zero-width space, as two cards each (h152).
 */
export const cardKeyInvisibles: Migration = {
  name: '030-card-key-invisibles',
  sqlite: [],
  postgres: [],
  run: async (trx) => {
    await rekeyCardRows(trx);
  },
};
