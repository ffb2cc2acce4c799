import type { CollectionRecord } from '../../store/collection-store.ts';

export type TextEngine = 'keyword' | 'clip';

/**
 * The engine a collection's text queries use: a CLIP-family pack's text tower only where the
 * collection's vectors come from a CLIP pack (vectors of another model are not comparable, and
 * the search then checks the pack is that very one); the keyword engine everywhere else.
 */
export function textEngineOf(c: CollectionRecord, hasTextModel: boolean): TextEngine {
  return hasTextModel && c.model?.startsWith('clip:') ? 'clip' : 'keyword';
}
