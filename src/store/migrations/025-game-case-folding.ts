import { rekeyGames } from './024-card-key-widths.ts';
import type { Migration } from './index.ts';

/**
 * Sessions' `game_key` made again as `gameKey` now folds case: `?game=` found a session sent as
 * ΚΑΡΤΕΣ (final σ) by "καρτες" only as "καρτεσ", and neither İSTANBUL by "istanbul" nor STRASSE by "straße".
 */
export const gameCaseFolding: Migration = {
  name: '025-game-case-folding',
  sqlite: [],
  postgres: [],
  run: rekeyGames,
};
