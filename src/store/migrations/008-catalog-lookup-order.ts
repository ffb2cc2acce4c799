import type { Migration } from './index.ts';

/**
 * The card lookups by folded number and by folded name return cards in key order. With the
 * indexes of 005 (catalog, number) and (catalog, name), SQLite, having no statistics, chose the
 * primary key to avoid the sort and read every card of the catalog: 180–200 ms a lookup in the
 * MTG catalog (58,638 cards), 2.5 s per `/tcg_id` photo with the Pokémon and MTG catalogs
 * imported. With the key at the end of each index the lookup is an index range already in order:
 * 4 ms for the 225 MTG cards numbered 45, 0.1 ms for a name.
 */
export const catalogLookupOrder: Migration = {
  name: '008-catalog-lookup-order',
  sqlite: [
    'DROP INDEX catalog_cards_number',
    'DROP INDEX catalog_cards_name',
    'CREATE INDEX catalog_cards_number ON catalog_cards(catalog_id, number_norm, card_key)',
    'CREATE INDEX catalog_cards_name ON catalog_cards(catalog_id, name_norm, card_key)',
  ],
  postgres: [
    'DROP INDEX catalog_cards_number',
    'DROP INDEX catalog_cards_name',
    'CREATE INDEX catalog_cards_number ON catalog_cards(catalog_id, number_norm, card_key)',
    'CREATE INDEX catalog_cards_name ON catalog_cards(catalog_id, name_norm, card_key)',
  ],
};
