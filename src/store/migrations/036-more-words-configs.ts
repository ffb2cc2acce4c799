import { wordsConfigsSql } from './015-words-configs.ts';
import type { Migration } from './index.ts';

/**
 * PostgreSQL: `loupe_italian_words`, `loupe_dutch_words`, `loupe_swedish_words` and `loupe_turkish_words`, as 015 made
 * the others, now that these languages have a lexicon and text is read as them (`pgConfigOf`): a record read as one
 * of them is stemmed by its language's Snowball stemmer with every word kept (Polish has none: `simple`). Rows stored before keep the configuration they were indexed with until the
 * record is written again; queries stem their words by every language a collection's rows are in, so both are found.
 */
export const moreWordsConfigs: Migration = {
  name: '036-more-words-configs',
  sqlite: [],
  postgres: [wordsConfigsSql(['italian', 'dutch', 'swedish', 'turkish'])],
};
