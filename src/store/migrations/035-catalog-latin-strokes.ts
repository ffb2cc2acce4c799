import { refoldCatalogNames } from '../catalog-names.ts';
import type { Migration } from './index.ts';

/**
 * Catalog names folded again now that the Latin letters no decomposition takes apart fold as everywhere else (ß → ss,
 * ł → l, ı → i, ø → o, œ → oe…): a Turkish shop's `Işık` was found by `ışık` on SQLite and not on PostgreSQL, whose
 * trigram search needs more of the name alike (h181). As 032: only rows whose folded name changes are written, and
 * each catalog touched has its names made again from its cards.
 */
export const catalogLatinStrokes: Migration = {
  name: '035-catalog-latin-strokes',
  sqlite: [],
  postgres: [],
  run: refoldCatalogNames,
};
