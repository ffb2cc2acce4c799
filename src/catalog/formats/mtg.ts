import { Fields, RowSet, fail, yearOf, type ReadContext, type ReadResult, type RecordPlace, type SetRow } from '../catalog-rows.ts';
import { mtgSetCode, type MtgCardReader } from './mtg-common.ts';
import { readJsonRecords, type JsonRecord } from '../record-stream.ts';
import { MtgjsonPrintings } from './mtgjson.ts';
import { MtgPoolCards, mtgPoolSet } from './mtg-pool.ts';
import { ScryfallCards } from './scryfall.ts';

/**
 * Magic: The Gathering catalogs come in three shapes, told apart by the file itself:
 * - MTGJSON printings: a JSON array of printings (`uuid`, `identifiers.scryfallId`), one record per
 *   card face;
 * - Scryfall bulk data (`default-cards`): a JSON array of card objects (`object: "card"`, `id`,
 *   `collector_number`);
 * - the booster-pool supplement: one JSON object `{"sets": [...], "cards": [...]}`.
 * Every shape keys a card by its Scryfall id, so a card imported from two of them is one row.
 */

/** A set in MTGJSON's shape (`releaseDate`, `baseSetSize`) or Scryfall's (`released_at`, `card_count`). */
export function mtgSet(f: Fields): SetRow {
  if (f.has('released_at') || f.has('set_type')) {
    return {
      code: mtgSetCode(f.need('code')),
      name: f.need('name'),
      series: f.text('block'),
      printedTotal: f.integer('printed_size') ?? f.integer('card_count'),
      total: f.integer('card_count'),
      releaseDate: f.date('released_at'),
      extra: f.rest('code', 'name', 'block', 'card_count', 'printed_size', 'released_at', 'object', 'uri', 'scryfall_uri', 'search_uri', 'icon_svg_uri'),
    };
  }
  const code = f.need('code');
  return {
    code: mtgSetCode(code),
    name: f.need('name'),
    series: f.text('block'),
    printedTotal: f.integer('baseSetSize'),
    total: f.integer('totalSetSize'),
    releaseDate: f.date('releaseDate'),
    extra: { ...f.rest('code', 'name', 'block', 'baseSetSize', 'totalSetSize', 'releaseDate'), ...(code !== mtgSetCode(code) ? { mtgjsonCode: code } : {}) },
  };
}

/** Sets from an MTGJSON sets array, a Scryfall sets list (`{"data": [...]}` or an array) or the pool object. */
export async function readMtgSets(file: string, ctx: ReadContext): Promise<SetRow[]> {
  const sets = new Map<string, { set: SetRow; at: RecordPlace }>();
  for await (const r of readJsonRecords(file, (read, size) => ctx.onBytes(file, read, size))) {
    const at = { file, line: r.line, index: r.index, path: r.path };
    if (r.path !== null && r.path !== 'data' && r.path !== 'sets') continue;
    if (r.index === null) continue;
    const f = Fields.of(r.value, at);
    const set = r.path === 'sets' ? mtgPoolSet(f) : mtgSet(f);
    const before = sets.get(set.code);
    if (before) fail(at, `set "${set.code}" is already on line ${before.at.line}`);
    sets.set(set.code, { set, at });
    ctx.onRecord(file);
  }
  return [...sets.values()].map((s) => s.set);
}

function shapeOf(first: JsonRecord, file: string): MtgCardReader | 'pool' {
  const at = { file, line: first.line, index: first.index, path: first.path };
  if (first.path !== null) {
    if (first.path === 'sets' || first.path === 'cards') return 'pool';
    if (first.path === 'data' && first.index !== null) {
      const v = first.value as Record<string, unknown> | null;
      if (v && typeof v === 'object' && v.object === 'card') return new ScryfallCards();
    }
    fail(at, `the file is a JSON object with "${first.path}"; expected an array of MTGJSON printings, Scryfall bulk cards, or the booster-pool object {"sets": [...], "cards": [...]} (an MTGJSON AllPrintings file must be flattened to an array of printings first)`);
  }
  const v = first.value as Record<string, unknown> | null;
  if (v && typeof v === 'object' && !Array.isArray(v)) {
    if ('uuid' in v && 'identifiers' in v) return new MtgjsonPrintings();
    if (v.object === 'card' || ('id' in v && 'collector_number' in v)) return new ScryfallCards();
  }
  return fail(at, 'is neither an MTGJSON printing ("uuid", "identifiers") nor a Scryfall card ("object": "card", "id", "collector_number")');
}

export async function readMtg(files: { cards: string; sets?: string | undefined }, ctx: ReadContext): Promise<ReadResult> {
  const sets = files.sets ? await readMtgSets(files.sets, ctx) : [];
  const file = files.cards;
  let reader: MtgCardReader | null = null;
  let pool: MtgPoolCards | null = null;
  let records = sets.length;
  for await (const r of readJsonRecords(file, (read, size) => ctx.onBytes(file, read, size))) {
    const at = { file, line: r.line, index: r.index, path: r.path };
    if (!reader) {
      const shape = shapeOf(r, file);
      reader = shape === 'pool' ? (pool = new MtgPoolCards()) : shape;
    }
    if (pool) {
      if (r.path !== 'sets' && r.path !== 'cards') fail(at, `the booster-pool object holds "sets" and "cards" only, not "${r.path ?? 'an array'}"`);
      if (r.index === null) fail(at, `"${r.path}" must be an array`);
      if (r.path === 'sets') {
        pool.addSet(Fields.of(r.value, at), at);
        records++;
        ctx.onRecord(file);
        continue;
      }
    } else if (reader instanceof ScryfallCards ? r.path !== null && r.path !== 'data' : r.path !== null) {
      fail(at, `unexpected "${r.path}" in a file of ${reader.format} cards`);
    }
    if (r.index === null) continue;
    reader.add(Fields.of(r.value, at), at);
    records++;
    ctx.onRecord(file);
  }
  if (!reader) fail({ file, line: 1, index: null, path: null }, 'holds no cards');
  const cards = new RowSet();
  reader.finish(cards);
  const allSets = pool ? [...pool.sets(), ...sets] : sets;
  fillFromSets(cards, new Map([...ctx.knownSets, ...allSets.map((s) => [s.code, s] as const)]), ctx);
  return { format: reader.format, rank: reader.rank, sets: allSets, cards, records };
}

/** A card without a set name or year takes its set's. */
function fillFromSets(cards: RowSet, sets: ReadonlyMap<string, SetRow>, ctx: ReadContext): void {
  for (const { row, at } of cards.rows.values()) {
    if (row.setName !== null && row.year !== null) continue;
    const set = row.setCode === null ? undefined : sets.get(row.setCode);
    if (!set) {
      ctx.remarks.add('{n} cards lack a set name or year and their set is not known', `"${row.key}" on line ${at.line}`);
      continue;
    }
    (row as { setName: string | null }).setName ??= set.name;
    (row as { year: string | null }).year ??= yearOf(set.releaseDate);
  }
}
