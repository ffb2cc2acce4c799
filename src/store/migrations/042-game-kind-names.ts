import type { Migration } from './index.ts';
import { refoldSessionSearch } from '../card-session-store.ts';

/**
 * Sessions whose game was sent as a card's `id_type` spells its kind (`sport`, `comic`, `slab`) stored as the documented
 * game, as new ones are since the fifty-fourth session (h264): `?game=Sports` now finds both, and `?game=sport`, read as
 * `Sports`, finds both too (h268: the filter missed the old ones). Their search text, which holds the game, made again.
 */
const rewrite = ['sport:Sports', 'comic:Comics', 'slab:Slabs'].map((pair) => {
  const [key, game] = pair.split(':') as [string, string];
  return `UPDATE card_sessions SET game = '${game}', game_key = '${game.toLowerCase()}', search_text = '' WHERE game_key = '${key}'`;
});

export const gameKindNames: Migration = {
  name: '042-game-kind-names',
  sqlite: rewrite,
  postgres: rewrite,
  run: async (trx, dialect) => void (await refoldSessionSearch(trx, dialect, { unfoldedOnly: true })),
};
