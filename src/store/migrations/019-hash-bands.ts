import type { Migration } from './index.ts';

/** Bits of each of the 17 bands a `bmh1` hash is cut into: sixteen of 15 and a last of 16 (256 in all). */
export const hashBandBits = [...Array.from({ length: 16 }, () => 15), 16];

/**
 * Near duplicates by visual hash (migration 014) were a scan of the collection on PostgreSQL: no
 * index orders rows by Hamming distance, and `bit_count(hash # q)` over 100,000 rows took 100–250 ms
 * a query (nearDupsInsert pays it per record). Cut into 17 bands, two hashes at most 16 bits apart
 * agree on at least one band whole (pigeonhole), so the rows sharing a band with the query, found
 * through a GIN index of each row's bands (`band index × 65536 + band value`), hold every answer,
 * and only they are counted bit by bit. An expression index: the table is not rewritten.
 */
export const hashBands: Migration = {
  name: '019-hash-bands',
  sqlite: [],
  postgres: [
    `CREATE OR REPLACE FUNCTION loupe_hash_bands(h bit(256)) RETURNS int[] LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$ SELECT ARRAY[${hashBandBits
      .map((bits, i) => `${i * 65536} + substring(h from ${i * 15 + 1} for ${bits})::int`)
      .join(', ')}] $$`,
    `CREATE INDEX IF NOT EXISTS collection_records_hash_bands ON collection_records USING gin (loupe_hash_bands(hash))`,
  ],
};
