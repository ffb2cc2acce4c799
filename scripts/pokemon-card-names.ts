/**
 * Builds src/catalog/tables/pokemon-card-names.json, the trainer and energy names in other languages
 * that recognition reads (src/catalog/pokemon-card-names.ts), from rows gathered out of
 * tcgdex/cards-database (MIT; one file per card, `data/<series>/<set>/<number>.ts`, whose `name`
 * gives en, fr, de, es, it and pt). The rows were read with the search tool's stored copy of that
 * repository (no network here), one line per card:
 *
 *   <pokemontcg card id> TAB <en> TAB <fr> TAB <de> TAB <es> TAB <it> TAB <pt> TAB <path read>
 *
 * for the first printing of every Trainer and Energy name in the Pokémon catalog since Sword &
 * Shield (2020). The English name written is the catalog's, so a row whose tcgdex English differs
 * (punctuation) still names the card the catalog holds.
 *
 * Older sets add French names only, from the French set lists of tcgdex/distribution (MIT, the
 * same project's API files, `fr/sets/<set>/index.json`: each card's id and French name), stored as
 * `<set>.tsv` files of `<card id> TAB <name>` in a second folder.
 *
 *   npx tsx scripts/pokemon-card-names.ts [<folder of out-*.txt> <folder of <set>.tsv> <cards.json>]
 *
 * The rows are committed in scripts/tcgdex-rows/ (its README says how they were read).
 */
import fs from 'node:fs';
import path from 'node:path';
import { CARD_NAMES_FILE, type CardNameTable } from '../src/catalog/pokemon-card-names.ts';

const here = (p: string) => path.resolve(import.meta.dirname, p);
const [folder = here('tcgdex-rows/card-names'), frLists = here('tcgdex-rows/fr-sets'), cardsFile = here('../../shared/catalogs/pokemon/cards.json')] = process.argv.slice(2);
const catalog = new Map((JSON.parse(fs.readFileSync(cardsFile, 'utf8')) as { id: string; name: string; supertype: string }[]).map((c) => [c.id, c]));
const languages = ['fr', 'de', 'es', 'it', 'pt'];
const rows = new Map<string, string[]>();
let read = 0;
let missing = 0;
let renamed = 0;
for (const file of fs.readdirSync(folder).filter((f) => /^out-\d+\.txt$/.test(f)).sort()) {
  for (const line of fs.readFileSync(path.join(folder, file), 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const cols = line.split('\t');
    read++;
    const card = catalog.get(cols[0]!);
    if (cols[1] === 'NOT FOUND' || !card || card.supertype === 'Pokémon') {
      missing++;
      continue;
    }
    if (cols[1]!.trim() !== card.name) renamed++;
    const names = languages.map((_, k) => (cols[2 + k] ?? '').trim());
    if (names.every((n) => !n)) {
      missing++;
      continue;
    }
    const row = [card.name, ...names];
    rows.set(row.join('\t'), row);
  }
}
// French set lists of older sets: a trainer or energy whose English name has no row yet
const named = new Set([...rows.values()].map((r) => r[0]));
let older = 0;
for (const file of fs.readdirSync(frLists).filter((f) => f.endsWith('.tsv')).sort()) {
  for (const line of fs.readFileSync(path.join(frLists, file), 'utf8').split('\n')) {
    const [id, fr] = line.split('\t');
    const card = id ? catalog.get(id) : undefined;
    if (!card || !fr?.trim() || card.supertype === 'Pokémon' || named.has(card.name) || /[<>]/.test(fr)) continue;
    const row = [card.name, fr.trim(), '', '', '', ''];
    if (!rows.has(row.join('\t'))) older++;
    rows.set(row.join('\t'), row);
  }
}
const table: CardNameTable = {
  source: 'tcgdex/cards-database (MIT, Copyright (c) 2021 TCGdex), data/<series>/<set>/<number>.ts, name.{fr,de,es,it,pt}: the first printing of each Trainer and Energy name since 2020 in the Pokémon catalog; older sets French only, from tcgdex/distribution fr/sets/<set>/index.json; built by scripts/pokemon-card-names.ts',
  languages,
  names: [...rows.values()].sort((a, b) => a[0]!.localeCompare(b[0]!)),
};
fs.mkdirSync(path.dirname(CARD_NAMES_FILE), { recursive: true });
fs.writeFileSync(CARD_NAMES_FILE, JSON.stringify(table, null, 0).replace(/\],\[/g, '],\n[') + '\n');
console.log(`${read} rows read, ${table.names.length} rows written (${older} French only, from older sets), ${missing} not found or not trainer/energy, ${renamed} with another English spelling in tcgdex`);
