import { Fields, RowSet, fail, yearOf, type CardRow, type ReadContext, type ReadResult, type SetRow } from '../catalog-rows.ts';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { CatalogFileError, readJsonRecords } from '../record-stream.ts';

/**
 * The Pokémon TCG data project's files (pokemon-tcg-data, the data behind pokemontcg.io):
 * `cards.json` (an array of cards; `id` like `base1-4`, `set` the set id) and `sets.json`. The project's own
 * per-set files (`cards/en/base1.json`) name no `set`: it is the id's part before its `-` (h260: "set" is missing);
 * the pokemontcg.io API's cards name it as an object (`"set": {"id": "base1", …}`).
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
    setCode: setCodeOf(f),
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

/** The card's set id: its `set` (text, or the API's object's `id`), else its `id` before the first `-`. */
export function setCodeOf(f: Fields): string {
  const set = f.value.set;
  if (set && typeof set === 'object' && !Array.isArray(set)) {
    const id = (set as { id?: unknown }).id;
    if (typeof id === 'string' && id.trim()) return id.trim();
  }
  if (f.has('set')) return f.need('set');
  const id = f.need('id');
  const cut = id.indexOf('-');
  return cut > 0 ? id.slice(0, cut) : fail(f.at, '"set" is missing, and the id names none before a "-" (as in "base1-4")');
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
  // the data project's folder of per-set files (cards/en/*.json) as one file of them all (h260: EISDIR)
  // (a file that cannot be read is said as every reader says it: h263, a bare ENOENT from the stat)
  const folder = await fsp.stat(files.cards).then((st) => st.isDirectory(), (err: NodeJS.ErrnoException) => {
    throw new CatalogFileError(files.cards, null, `cannot be read (${err.code ?? err.message})`);
  });
  // (an editor's or macOS's dot files beside them are no cards)
  const cardFiles = folder ? (await fsp.readdir(files.cards)).filter((n) => !n.startsWith('.') && n.toLowerCase().endsWith('.json')).sort().map((n) => path.join(files.cards, n)) : [files.cards];
  // a folder has no line: it was named "line 0 (record 1)" (h339)
  if (!cardFiles.length) throw new CatalogFileError(files.cards, null, 'is a folder that holds no .json files of cards (--cards takes a cards file, or the data project\'s folder of per-set files)');
  for (const file of cardFiles) {
    for await (const r of readJsonRecords(file, (read, size) => ctx.onBytes(file, read, size))) {
      const at = { file, line: r.line, index: r.index, path: r.path };
      if (r.path !== null) fail(at, 'a Pokémon cards file is a JSON array of cards');
      const f = Fields.of(r.value, at);
      const setCode = setCodeOf(f);
      const set = bySet.get(setCode);
      if (!set) ctx.remarks.add(`{n} cards name a set that is in neither the sets file nor the catalog: no set name or year for them`, `"${setCode}" on line ${r.line}${folder ? ` of ${path.basename(file)}` : ''}`);
      cards.add(pokemonCard(f, set), at);
      records++;
      ctx.onRecord(file);
    }
  }
  return { format: 'pokemon', rank: 2, sets, cards, records };
}
