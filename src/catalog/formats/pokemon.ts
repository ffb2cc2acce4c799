import { Fields, RowSet, fail, yearOf, type CardRow, type ReadContext, type ReadResult, type SetRow } from '../catalog-rows.ts';
import { readJsonRecords } from '../record-stream.ts';

/**
 * The Pokémon TCG data project's files (pokemon-tcg-data, the data behind pokemontcg.io):
 * `cards.json` (an array of cards; `id` like `base1-4`, `set` the set id) and `sets.json`.
 * The card's year is its set's release year, so cards whose set is unknown (neither in the sets
 * file nor already in the catalog) keep a null year and set name, and the import says how many.
 */

export function pokemonSet(f: Fields): SetRow {
  return {
    code: f.need('id'),
    name: f.need('name'),
    series: f.text('series'),
    printedTotal: f.integer('printedTotal'),
    total: f.integer('total'),
    releaseDate: f.date('releaseDate'),
    extra: f.rest('id', 'name', 'series', 'printedTotal', 'total', 'releaseDate'),
  };
}

export function pokemonCard(f: Fields, set: SetRow | undefined): CardRow {
  const images = f.object('images');
  f.textList('subtypes');
  f.textList('types');
  return {
    key: f.need('id'),
    name: f.need('name'),
    setCode: f.need('set'),
    setName: set?.name ?? null,
    number: f.need('number'),
    rarity: f.text('rarity'),
    year: yearOf(set?.releaseDate),
    fields: { ...f.rest('id', 'name', 'set', 'number', 'rarity', 'images'), ...(images ? { images: images.rest() } : {}) },
    links: {},
    aliases: [],
    flags: [],
  };
}

export async function readPokemonSets(file: string, ctx: ReadContext): Promise<SetRow[]> {
  const sets = new Map<string, { set: SetRow; line: number }>();
  for await (const r of readJsonRecords(file, (read, size) => ctx.onBytes(file, read, size))) {
    const at = { file, line: r.line, index: r.index, path: r.path };
    if (r.path !== null) fail(at, 'a Pokémon sets file is a JSON array of sets');
    const f = Fields.of(r.value, at);
    // a cards file given as --sets made each card a "set" (20,202 of them, exit 0), which no later import takes away (h194)
    if (f.has('set') && f.has('number')) fail(at, 'this is a card (it names its "set" and "number"), not a set: --sets takes the sets file (sets.json), --cards the cards');
    const set = pokemonSet(f);
    const before = sets.get(set.code);
    if (before) fail(at, `set "${set.code}" is already on line ${before.line}`);
    sets.set(set.code, { set, line: r.line });
    ctx.onRecord(file);
  }
  return [...sets.values()].map((s) => s.set);
}

export async function readPokemon(files: { cards: string; sets?: string | undefined }, ctx: ReadContext): Promise<ReadResult> {
  const sets = files.sets ? await readPokemonSets(files.sets, ctx) : [];
  const bySet = new Map(ctx.knownSets);
  for (const s of sets) bySet.set(s.code, s);
  const cards = new RowSet();
  let records = sets.length;
  for await (const r of readJsonRecords(files.cards, (read, size) => ctx.onBytes(files.cards, read, size))) {
    const at = { file: files.cards, line: r.line, index: r.index, path: r.path };
    if (r.path !== null) fail(at, 'a Pokémon cards file is a JSON array of cards');
    const f = Fields.of(r.value, at);
    const setCode = f.need('set');
    const set = bySet.get(setCode);
    if (!set) ctx.remarks.add(`{n} cards name a set that is in neither the sets file nor the catalog: no set name or year for them`, `"${setCode}" on line ${r.line}`);
    cards.add(pokemonCard(f, set), at);
    records++;
    ctx.onRecord(files.cards);
  }
  return { format: 'pokemon', rank: 2, sets, cards, records };
}
