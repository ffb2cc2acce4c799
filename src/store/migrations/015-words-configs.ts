import type { Migration } from './index.ts';

/**
 * The statement that makes `loupe_<language>_words` for each of `languages` (PostgreSQL's configuration names) that
 * PostgreSQL has and that is not made yet; 036 runs it again for the languages added since.
 */
export const wordsConfigsSql = (languages: readonly string[]): string => `DO $$
DECLARE
  lang text;
  m record;
BEGIN
  FOREACH lang IN ARRAY ARRAY[${languages.map((l) => `'${l}'`).join(', ')}] LOOP
    CONTINUE WHEN NOT EXISTS (SELECT 1 FROM pg_ts_config WHERE cfgname = lang);
    CONTINUE WHEN EXISTS (SELECT 1 FROM pg_ts_config WHERE cfgname = 'loupe_' || lang || '_words');
    EXECUTE format('CREATE TEXT SEARCH CONFIGURATION %I (COPY = %I)', 'loupe_' || lang || '_words', lang);
    FOR m IN
      SELECT t.alias, d.dictname
      FROM pg_ts_config c
      JOIN pg_ts_config_map mp ON mp.mapcfg = c.oid
      JOIN pg_ts_dict d ON d.oid = mp.mapdict
      CROSS JOIN LATERAL ts_token_type(c.cfgparser) t
      WHERE c.cfgname = lang AND t.tokid = mp.maptokentype AND d.dictname LIKE '%\\_stem'
    LOOP
      IF NOT EXISTS (SELECT 1 FROM pg_ts_dict WHERE dictname = 'loupe_' || m.dictname) THEN
        EXECUTE format('CREATE TEXT SEARCH DICTIONARY %I (TEMPLATE = snowball, Language = %s)', 'loupe_' || m.dictname, replace(m.dictname, '_stem', ''));
      END IF;
      EXECUTE format('ALTER TEXT SEARCH CONFIGURATION %I ALTER MAPPING FOR %I WITH %I', 'loupe_' || lang || '_words', m.alias, 'loupe_' || m.dictname);
    END LOOP;
  END LOOP;
END $$`;

/**
 * PostgreSQL: for every language text search stems (`pgConfigOf`), a copy of its configuration whose
 * Snowball dictionaries keep stop words (`loupe_<language>_words`; `pgWordsConfig`). SQLite's porter
 * tokenizer stems every record and drops no word, and the query parser takes out only the few stop
 * words it lists, so "down" and "up" found a title on SQLite and answered 422 on PostgreSQL, whose
 * `english` drops them; and a record whose language could not be told, indexed unstemmed, was not
 * found by "wallet" for "wallets" (it now takes `loupe_english_words`). Languages the server has no
 * configuration for are passed over.
 */
export const wordsConfigs: Migration = {
  name: '015-words-configs',
  sqlite: [],
  postgres: [wordsConfigsSql(['english', 'spanish', 'french', 'portuguese', 'russian', 'arabic', 'hindi', 'german', 'indonesian'])],
};
