import type { Migration } from './index.ts';

/**
 * PostgreSQL: a text search configuration that stems English words and drops none, for the words of
 * records whose language could not be told (`pgWordsConfig`): SQLite's porter tokenizer stems every
 * record and keeps its stop words, so such a record was found on SQLite by "wallet" (it said
 * "wallets", unstemmed on PostgreSQL) and by "over under" (words `english` drops). A copy of
 * `english` whose words go to a Snowball English dictionary without a stop-word list.
 */
export const englishWordsConfig: Migration = {
  name: '015-english-words-config',
  sqlite: [],
  postgres: [
    `CREATE TEXT SEARCH DICTIONARY loupe_english_stem (TEMPLATE = snowball, Language = english)`,
    `CREATE TEXT SEARCH CONFIGURATION loupe_english_words (COPY = english)`,
    `ALTER TEXT SEARCH CONFIGURATION loupe_english_words ALTER MAPPING FOR asciiword, asciihword, hword_asciipart, word, hword, hword_part WITH loupe_english_stem`,
  ],
};
