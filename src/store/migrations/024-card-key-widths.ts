import type { Transaction } from 'kysely';
import type { Database } from '../database.ts';
import { cardKey, gameKey, storedGame } from '../session-card-keys.ts';
import type { Migration } from './index.ts';

/**
 * Card keys made before this release were composed (NFC) but kept width as sent, so a session's
 * `distinct_cards` counted ピカチュウ / SV2a / 025 and ﾋﾟｶﾁｭｳ / ＳＶ２ａ / ０２５ (a Japanese input
 * method's full- and half-width forms) as two cards. Every row's key is made again from the row's
 * own fields by `cardKey`, as the server now makes it: a stored key cannot be folded again (it was
 * lower-cased before NFKC makes ™ "TM", and its number's zero after a full-width digit was gone:
 * "１05" had become "１5", read as 15), nor can SQL repeat JavaScript's case and NFKC exactly.
 */
export const cardKeyWidths: Migration = {
  name: '024-card-key-widths',
  sqlite: [],
  postgres: [],
  run: async (trx) => {
    await rekeyCardRows(trx);
    await rekeyGames(trx);
  },
};

/**
 * Sessions' `game_key` made again as `gameKey` now makes it (`?game=TCG` did not find a session sent as ＴＣＧ), and a
 * documented game sent full-width stored as the spec spells it, as this release stores it sent so (ＴＣＧ → TCG).
 */
export async function rekeyGames(trx: Transaction<Database>): Promise<void> {
  const rows = await trx.selectFrom('card_sessions').select(['id', 'game', 'game_key']).where('game', '<>', '').execute();
  for (const r of rows) {
    const key = gameKey(r.game);
    const game = storedGame(r.game);
    if (key !== r.game_key || game !== r.game) await trx.updateTable('card_sessions').set({ game_key: key, game }).where('id', '=', r.id).execute();
  }
}

export async function rekeyCardRows(trx: Transaction<Database>): Promise<void> {
  const batch = 1000;
  // by seq, the table's own order (an integer on both backends)
  for (let after = 0; ; ) {
    const rows = await trx
      .selectFrom('card_identifications')
      .select(['seq', 'id', 'id_type', 'name', 'full_name', 'set_code', 'set_name', 'card_number', 'year', 'card_key'])
      .where('seq', '>', after)
      .orderBy('seq')
      .limit(batch)
      .execute();
    for (const r of rows) {
      const key = cardKey(r);
      if (key !== r.card_key) await trx.updateTable('card_identifications').set({ card_key: key }).where('id', '=', r.id).execute();
    }
    if (rows.length < batch) return;
    after = Number(rows[rows.length - 1]!.seq);
  }
}
