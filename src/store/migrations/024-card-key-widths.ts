import { pgRefoldCardKey } from '../session-card-keys.ts';
import type { Migration } from './index.ts';

/**
 * Card keys made before this release were composed (NFC) but kept width as sent, so a session's
 * `distinct_cards` counted ピカチュウ / SV2a / 025 and ﾋﾟｶﾁｭｳ / ＳＶ２ａ / ０２５ (a Japanese input
 * method's full- and half-width forms) as two cards. Keys are made again as `cardKey` now makes
 * them (NFKC), by the same functions as 021.
 */
export const cardKeyWidths: Migration = {
  name: '024-card-key-widths',
  sqlite: [`UPDATE card_identifications SET card_key = loupe_refold_card_key(card_key) WHERE card_key IS NOT NULL AND card_key <> loupe_refold_card_key(card_key)`],
  postgres: [`UPDATE card_identifications SET card_key = ${pgRefoldCardKey('card_key')} WHERE card_key IS NOT NULL AND card_key <> ${pgRefoldCardKey('card_key')}`],
};
