import { wordsConfigsSql } from './015-words-configs.ts';
import type { Migration } from './index.ts';

/**
 * PostgreSQL: `loupe_italian_words` and `loupe_dutch_words`, as 015 made the others, now that Italian and Dutch have
 * a lexicon and text is read as them (`pgConfigOf`): a record read as Italian or Dutch is stemmed by its language's
 * Snowball stemmer with every word kept. Rows stored before keep the configuration they were indexed with until the
 * record is written again; queries stem their words by every language a collection's rows are in, so both are found.
 */
export const italianDutchWords: Migration = {
  name: '036-italian-dutch-words',
  sqlite: [],
  postgres: [wordsConfigsSql(['italian', 'dutch'])],
};
