import { refoldCatalogNames } from '../catalog-names.ts';
import type { Migration } from './index.ts';

/**
 * Catalog names folded again now that a kana's voiced and semi-voiced marks stay (ガラガラ, Marowak, had the folded
 * name of カラカラ, Cubone; a shop's Japanese catalog listed one for the other, h152), and Hangul stays in syllables
 * (the fold recomposes what it decomposed). Only rows whose folded name changes are written; each catalog touched has
 * its names (the name search's rows) made again from its cards by the function an import uses.
 */
export const kanaVoicedNames: Migration = {
  name: '032-kana-voiced-names',
  sqlite: [],
  postgres: [],
  run: refoldCatalogNames,
};
