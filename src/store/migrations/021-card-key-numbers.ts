import { pgRefoldCardKey } from '../session-card-keys.ts';
import type { Migration } from './index.ts';

/**
 * Card keys made before this release kept a collector number's leading zeros and the name's
 * Unicode form as sent, so a session's `distinct_cards` counted "025" and "25" (or "Flabébé"
 * composed and decomposed) as two cards. Keys are made again as `cardKey` now makes them.
 * SQLite calls the server's own function (registered on every connection, `database.ts`).
 */
export const cardKeyNumbers: Migration = {
  name: '021-card-key-numbers',
  sqlite: [`UPDATE card_identifications SET card_key = loupe_refold_card_key(card_key) WHERE card_key IS NOT NULL AND card_key <> loupe_refold_card_key(card_key)`],
  postgres: [`UPDATE card_identifications SET card_key = ${pgRefoldCardKey('card_key')} WHERE card_key IS NOT NULL AND card_key <> ${pgRefoldCardKey('card_key')}`],
};
