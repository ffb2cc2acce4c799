import { yearOf, type CardRow, type Fields, type RecordPlace, type RowSet } from '../catalog-rows.ts';
import { colorsOf, mtgLinks, mtgSetCode, withSetFlags, type MtgCardReader } from './mtg-common.ts';

/** What a row keeps of a Scryfall card: ids, printing facts and images; not rules text or legalities. */
const KEPT = [
  'lang', 'released_at', 'layout', 'type_line', 'mana_cost', 'colors', 'color_identity', 'image_uris', 'multiverse_ids', 'tcgplayer_id',
  'tcgplayer_etched_id', 'cardmarket_id', 'mtgo_id', 'arena_id', 'oracle_id', 'illustration_id', 'finishes', 'promo', 'promo_types', 'digital',
  'oversized', 'border_color', 'frame', 'frame_effects', 'full_art', 'variation', 'artist', 'set_type', 'prices',
];

/**
 * Scryfall bulk data (`default-cards`, `all-cards`, `oracle-cards`): a JSON array of card objects,
 * one per printing and language, keyed by the Scryfall `id` (the key MTGJSON rows use too).
 * Set codes are upper-cased to MTGJSON's spelling.
 */
export class ScryfallCards implements MtgCardReader {
  readonly format = 'scryfall';
  readonly rank = 2;
  private readonly rows: { row: CardRow; at: RecordPlace }[] = [];

  add(f: Fields, at: RecordPlace): void {
    const setCode = mtgSetCode(f.need('set'));
    const number = f.need('collector_number');
    const fields: Record<string, unknown> = {};
    for (const k of KEPT) if (f.has(k)) fields[k] = f.value[k];
    const faces = f.value.card_faces;
    const faceList = Array.isArray(faces)
      ? faces.map((x: Record<string, unknown>) => ({ name: x?.name ?? null, type: x?.type_line ?? null, manaCost: x?.mana_cost ?? null, ...(x?.image_uris ? { image_uris: x.image_uris } : {}) }))
      : null;
    if (faceList) fields.faces = faceList;
    if (!f.has('colors')) fields.colors = colorsOf(f.text('mana_cost'), ...(faceList ?? []).map((x) => (typeof x.manaCost === 'string' ? x.manaCost : null)));
    const purchase = f.object('purchase_uris');
    const multiverse = f.value.multiverse_ids;
    const links: Record<string, string> = {
      ...mtgLinks({ setCode, number }, { multiverseId: Array.isArray(multiverse) && multiverse.length > 0 ? String(multiverse[0]) : null, tcgplayerProductId: f.text('tcgplayer_id') }),
      ...(purchase ? (purchase.rest() as Record<string, string>) : {}),
    };
    const page = f.text('scryfall_uri');
    if (page) links.scryfall = page;
    const flags: string[] = [];
    if (f.boolean('oversized')) flags.push('oversized');
    if (f.boolean('digital')) flags.push('digital');
    if (f.boolean('promo')) flags.push('promo');
    this.rows.push({
      row: {
        key: f.need('id'),
        name: f.need('name'),
        setCode,
        setName: f.text('set_name'),
        number,
        rarity: f.text('rarity'),
        year: yearOf(f.text('released_at')),
        fields,
        links,
        aliases: [],
        flags: withSetFlags(setCode, flags),
      },
      at,
    });
  }

  finish(cards: RowSet): void {
    for (const { row, at } of this.rows) cards.add(row, at);
    this.rows.length = 0;
  }
}
